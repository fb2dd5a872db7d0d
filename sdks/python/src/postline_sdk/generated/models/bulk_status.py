from enum import StrEnum


class BulkStatus(StrEnum):
    CATCH_ALL_PROCESSING = "catch_all_processing"
    COMPLETED = "completed"
    DELETED = "deleted"
    EXPIRED = "expired"
    FAILED = "failed"
    PACKAGING = "packaging"
    PAUSED = "paused"
    PENDING = "pending"
    PROCESSING = "processing"
    QUEUED = "queued"
    UPLOADING = "uploading"

    def __str__(self) -> str:
        return str(self.value)
