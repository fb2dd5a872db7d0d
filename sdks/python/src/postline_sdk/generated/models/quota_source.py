from enum import StrEnum


class QuotaSource(StrEnum):
    OWN_PLAN = "own_plan"
    PAYG_CREDITS = "payg_credits"
    SHARED_POOL = "shared_pool"

    def __str__(self) -> str:
        return str(self.value)
