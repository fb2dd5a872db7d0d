from enum import StrEnum


class Plan(StrEnum):
    FREE = "free"
    PROFESSIONAL = "professional"

    def __str__(self) -> str:
        return str(self.value)
