from enum import StrEnum


class CopySource(StrEnum):
    KEPT = "kept"
    REBUILT = "rebuilt"

    def __str__(self) -> str:
        return str(self.value)
