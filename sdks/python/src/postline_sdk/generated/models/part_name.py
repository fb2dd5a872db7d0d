from enum import StrEnum


class PartName(StrEnum):
    AUTHENTICATION = "authentication"
    BULK_SENDER = "bulk_sender"
    CONTENT = "content"
    SPAMASSASSIN = "spamassassin"

    def __str__(self) -> str:
        return str(self.value)
