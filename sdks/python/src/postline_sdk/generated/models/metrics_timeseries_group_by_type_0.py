from enum import StrEnum


class MetricsTimeseriesGroupByType0(StrEnum):
    DOMAIN = "domain"
    STATUS = "status"
    SUBACCOUNT = "subaccount"

    def __str__(self) -> str:
        return str(self.value)
