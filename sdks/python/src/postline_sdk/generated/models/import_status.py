from enum import StrEnum


class ImportStatus(StrEnum):
    DONE = "done"
    FAILED = "failed"
    PENDING = "pending"
    PROCESSING = "processing"

    def __str__(self) -> str:
        return str(self.value)
