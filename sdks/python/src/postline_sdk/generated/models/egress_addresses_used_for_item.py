from enum import StrEnum


class EgressAddressesUsedForItem(StrEnum):
    SMTP_RELAY = "smtp_relay"
    WEBHOOKS = "webhooks"

    def __str__(self) -> str:
        return str(self.value)
