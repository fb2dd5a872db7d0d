from enum import StrEnum


class Risk(StrEnum):
    HIGH = "high"
    LOW = "low"
    MEDIUM = "medium"
    UNDELIVERABLE = "undeliverable"

    def __str__(self) -> str:
        return str(self.value)
