from enum import StrEnum


class SuppressionSource(StrEnum):
    DELIVERY_REPORT = "delivery_report"
    IMPORT = "import"
    MANUAL = "manual"
    VERIFICATION = "verification"

    def __str__(self) -> str:
        return str(self.value)
