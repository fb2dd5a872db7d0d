from enum import StrEnum


class ResendJobViewMode(StrEnum):
    DELIVERY_IDS = "delivery_ids"
    FILTER = "filter"

    def __str__(self) -> str:
        return str(self.value)
