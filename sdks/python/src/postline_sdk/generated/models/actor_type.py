from enum import StrEnum


class ActorType(StrEnum):
    STAFF = "staff"
    SYSTEM = "system"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
