from enum import StrEnum


class Recommendation(StrEnum):
    CAUTION = "caution"
    MAIL = "mail"
    REVIEW = "review"
    SUPPRESS = "suppress"

    def __str__(self) -> str:
        return str(self.value)
