from enum import StrEnum


class RowErrorReason(StrEnum):
    CELL_TOO_LONG = "cell_too_long"
    INVALID_CREATED_AT = "invalid_created_at"
    INVALID_SYNTAX = "invalid_syntax"
    MISSING_EMAIL = "missing_email"

    def __str__(self) -> str:
        return str(self.value)
