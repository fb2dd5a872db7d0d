from enum import StrEnum


class ListSendStatus(StrEnum):
    CANCELLED = "cancelled"
    CANCELLING = "cancelling"
    DONE = "done"
    FAILED = "failed"
    PENDING = "pending"
    SENDING = "sending"

    def __str__(self) -> str:
        return str(self.value)
