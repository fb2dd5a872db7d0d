"""What the key service needs: key storage and the secret hasher.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.audit.domain import AuditEntry
    from postline.keys.domain import ApiKey


class SecretHasher(Protocol):
    def hash(self, secret: str) -> str: ...


class KeyStore(Protocol):
    def find_key_by_hash(self, key_hash: str) -> tuple[str, str] | None:
        """(account_id, key_id) of the key whose secret hashes to key_hash, if any."""
        ...

    def known_key(self, key_hash: str) -> tuple[str, str] | None:
        """What `find_key_by_hash` found for key_hash before in this instance, without a read (None: not
        known here). A hint, not a check: the key may have been rotated or deleted since."""
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
