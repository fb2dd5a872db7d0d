from enum import StrEnum


class AttemptResult(StrEnum):
    CUT_SHORT = "cut_short"
    REFUSED = "refused"
    RETRYABLE = "retryable"
    SUCCEEDED = "succeeded"

    def __str__(self) -> str:
        return str(self.value)
