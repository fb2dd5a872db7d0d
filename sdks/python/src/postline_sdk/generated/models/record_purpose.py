from enum import StrEnum


class RecordPurpose(StrEnum):
    DKIM = "dkim"
    DKIM_NEXT = "dkim_next"
    DMARC = "dmarc"
    RETURN_PATH_MX = "return_path_mx"
    SPF = "spf"
    TRACKING = "tracking"

    def __str__(self) -> str:
        return str(self.value)
