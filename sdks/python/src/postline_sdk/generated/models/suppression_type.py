from enum import StrEnum


class SuppressionType(StrEnum):
    ALLOWLIST = "allowlist"
    BOUNCES = "bounces"
    COMPLAINTS = "complaints"
    UNSUBSCRIBES = "unsubscribes"

    def __str__(self) -> str:
        return str(self.value)
