from enum import StrEnum


class MetricsBreakdownSort(StrEnum):
    BOUNCED = "bounced"
    CLICKED = "clicked"
    COMPLAINED = "complained"
    DELIVERED = "delivered"
    FAILED = "failed"
    OPENED = "opened"
    SENT = "sent"
    UNIQUE_CLICKS = "unique_clicks"
    UNIQUE_OPENS = "unique_opens"

    def __str__(self) -> str:
        return str(self.value)
