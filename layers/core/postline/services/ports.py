"""What services need from the outside world. Adapters implement these; tests pass fakes."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from postline.domain.accounts import Account
from postline.domain.audit import AuditEntry
from postline.domain.keys import ApiKey


class Clock(Protocol):
    def now(self) -> datetime: ...


class IdFactory(Protocol):
    def new_id(self, prefix: str = "") -> str: ...

    def secret(self, nbytes: int) -> str: ...


class SecretHasher(Protocol):
    def hash(self, secret: str) -> str: ...


class AccountStore(Protocol):
    def get_account(self, account_id: str) -> Account | None: ...

    def create_account(self, account: Account, audit: AuditEntry) -> None: ...

    def update_account(self, account: Account, audit: AuditEntry) -> None: ...

    def platform_sending_paused(self) -> bool: ...

    def set_platform_sending_paused(self, paused: bool, audit: AuditEntry) -> None: ...


class KeyStore(Protocol):
    def find_key_by_hash(self, key_hash: str) -> tuple[str, str] | None:
        """(account_id, key_id) of the key whose secret hashes to key_hash, if any."""
        ...

    def get_key_with_account(self, account_id: str, key_id: str) -> tuple[ApiKey | None, Account | None]:
        """Both read strongly consistent in one round trip: a rotated secret must fail at once."""
        ...

    def get_key(self, account_id: str, key_id: str) -> ApiKey | None: ...

    def list_keys(self, account_id: str) -> list[ApiKey]: ...

    def create_key(self, key: ApiKey, *, max_keys: int, audit: AuditEntry) -> None:
        """Raises Forbidden(plan_limit_reached) when the account already holds max_keys."""
        ...

    def update_key(self, key: ApiKey, audit: AuditEntry) -> None: ...

    def rotate_key(self, key: ApiKey, *, previous_hash: str, audit: AuditEntry) -> None: ...

    def delete_key(self, key: ApiKey, audit: AuditEntry) -> None: ...

    def touch_last_used(self, key: ApiKey, now: datetime) -> None: ...


class AuditStore(Protocol):
    def record(self, entry: AuditEntry) -> None: ...

    def list_audit(self, account_id: str, *, page: int, per_page: int) -> tuple[list[AuditEntry], int]: ...


class CounterStore(Protocol):
    def count_request(self, account_id: str, window_start: int, *, expires_at: int) -> int:
        """Atomically add one request to the account's window; returns the new count."""
        ...

    def usage(self, account_id: str, *, month: str, day: str) -> dict[str, int]:
        """Counters of the month and day: emails, emails_daily, verify."""
        ...
