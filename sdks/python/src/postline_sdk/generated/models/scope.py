from enum import StrEnum


class Scope(StrEnum):
    FULL_ACCESS = "full_access"
    READ_ONLY = "read_only"
    SEND_ONLY = "send_only"

    def __str__(self) -> str:
        return str(self.value)
