from enum import StrEnum


class DisabledReason(StrEnum):
    AUTO_FAILURES = "auto_failures"
    MANUAL = "manual"

    def __str__(self) -> str:
        return str(self.value)
