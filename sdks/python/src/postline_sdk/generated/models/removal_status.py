from enum import StrEnum


class RemovalStatus(StrEnum):
    DONE = "done"
    FAILED = "failed"
    PENDING = "pending"
    PROCESSING = "processing"

    def __str__(self) -> str:
        return str(self.value)
