from enum import StrEnum


class Verdict(StrEnum):
    GOOD = "good"
    POOR = "poor"
    REVIEW = "review"

    def __str__(self) -> str:
        return str(self.value)
