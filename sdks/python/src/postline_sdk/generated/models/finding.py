from enum import StrEnum


class Finding(StrEnum):
    DOMAIN_APPENDED_TWICE = "domain_appended_twice"
    FOUND = "found"
    INVALID = "invalid"
    LOOKUP_FAILED = "lookup_failed"
    MISMATCH = "mismatch"
    MISSING = "missing"
    UNCHECKED = "unchecked"

    def __str__(self) -> str:
        return str(self.value)
