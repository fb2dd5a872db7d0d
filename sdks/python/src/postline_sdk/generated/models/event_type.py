from enum import StrEnum


class EventType(StrEnum):
    BOUNCED = "bounced"
    CLICKED = "clicked"
    COMPLAINED = "complained"
    DELAYED = "delayed"
    DELIVERED = "delivered"
    DUPLICATE = "duplicate"
    FAILED = "failed"
    OPENED = "opened"
    QUEUED = "queued"
    REJECTED = "rejected"
    SENT = "sent"
    UNSUBSCRIBED = "unsubscribed"

    def __str__(self) -> str:
        return str(self.value)
