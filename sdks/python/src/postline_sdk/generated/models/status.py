from enum import StrEnum


class Status(StrEnum):
    FAIL = "fail"
    PASS = "pass"
    UNAVAILABLE = "unavailable"
    WARN = "warn"

    def __str__(self) -> str:
        return str(self.value)
