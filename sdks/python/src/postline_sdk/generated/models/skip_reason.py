from enum import StrEnum


class SkipReason(StrEnum):
    DUPLICATE_IN_BATCH = "duplicate_in_batch"
    INVALID_SYNTAX = "invalid_syntax"

    def __str__(self) -> str:
        return str(self.value)
