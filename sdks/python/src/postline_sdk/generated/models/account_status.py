from enum import StrEnum


class AccountStatus(StrEnum):
    ACTIVE = "active"
    PAST_DUE = "past_due"
    SUSPENDED = "suspended"
    TRASHED = "trashed"
    TRIALING = "trialing"

    def __str__(self) -> str:
        return str(self.value)
