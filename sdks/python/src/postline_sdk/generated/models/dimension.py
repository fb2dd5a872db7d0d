from enum import StrEnum


class Dimension(StrEnum):
    BOUNCE_CODE = "bounce_code"
    CLIENT = "client"
    COMPLAINT_TYPE = "complaint_type"
    COUNTRY = "country"
    IP_POOL = "ip_pool"
    MAILBOX_PROVIDER = "mailbox_provider"
    RECIPIENT_DOMAIN = "recipient_domain"
    SENDING_DOMAIN = "sending_domain"
    SUBACCOUNT = "subaccount"
    TAG = "tag"
    TEMPLATE = "template"

    def __str__(self) -> str:
        return str(self.value)
