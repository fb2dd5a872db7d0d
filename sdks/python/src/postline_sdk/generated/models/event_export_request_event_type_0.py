from enum import StrEnum


class EventExportRequestEventType0(StrEnum):
    BOUNCED = "bounced"
    CLICKED = "clicked"
    COMPLAINED = "complained"
    DELAYED = "delayed"
    DELIVERED = "delivered"
    FAILED = "failed"
    OPENED = "opened"
    QUEUED = "queued"
    REJECTED = "rejected"
    SENT = "sent"
    UNSUBSCRIBED = "unsubscribed"

    def __str__(self) -> str:
        return str(self.value)
