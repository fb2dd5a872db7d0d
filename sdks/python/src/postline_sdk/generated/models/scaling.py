from enum import StrEnum


class Scaling(StrEnum):
    MANAGED = "managed"
    STANDARD = "standard"

    def __str__(self) -> str:
        return str(self.value)
