from enum import StrEnum


class EvaluationRecommendation(StrEnum):
    GOOD = "good"
    NEEDS_CLEANING = "needs_cleaning"
    POOR = "poor"

    def __str__(self) -> str:
        return str(self.value)
