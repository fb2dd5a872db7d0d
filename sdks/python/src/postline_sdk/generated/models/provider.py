from enum import StrEnum


class Provider(StrEnum):
    ALT_POSTAL = "alt-postal"
    CLOUD_RELAY = "cloud-relay"

    def __str__(self) -> str:
        return str(self.value)
