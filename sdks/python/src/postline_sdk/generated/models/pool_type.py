from enum import StrEnum


class PoolType(StrEnum):
    DEDICATED = "dedicated"
    SHARED = "shared"
    WARMING = "warming"

    def __str__(self) -> str:
        return str(self.value)
