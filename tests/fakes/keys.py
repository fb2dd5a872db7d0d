"""In-memory fakes of the keys area's ports (`postline/keys/ports.py`): the secret hasher, and the store
of the resources table, which is the key store and also the account and audit stores
(`postline/accounts/ports.py`, `postline/audit/ports.py`): one table, each write with its audit entry.
It lives here, the highest of its three areas on the ladder.

`InMemoryStore` keeps the semantics of the resources table's DynamoDB stores (accounts, keys, audit, templates):
- items are stored as JSON-shaped dicts and read back through the models, so a value the
  adapter could not read back cannot be read back here either, and callers never share objects;
- every write that carries an audit entry records exactly that entry, atomically: a refused
  write records nothing;
- `create_key` refuses with Forbidden(plan_limit_reached) when the account is missing or
  already holds `max_keys` (the adapter's first condition, `attribute_exists(pk) AND key_count < :max`);
- `update_key` and `rotate_key` check the stored hash optimistically and raise NotFound when the
  key is gone, Conflict (a 409: a retry reads it again) when its hash changed; rotation swaps the
  hash lookup in the same step;
- `touch_last_used` writes only when the stored value is at least a minute old;
- audit entries list newest first (the adapter's sort key: created_at, then id), per account,
  platform entries (account_id None) apart.

Where the adapter lets a raw ClientError escape (a secret hash that is already taken), the fake
raises Conflict, so a test that reaches it fails loudly instead of silently diverging.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from postline.accounts.domain import Account
from postline.accounts.store import ORGANISATION_FIELDS
from postline.audit.domain import AuditEntry
from postline.keys.domain import LAST_USED_RESOLUTION_SECONDS, ApiKey
from postline.shared.errors import Conflict, Forbidden, NotFound, ValidationFailed
from postline.shared.pagination import page_window

if TYPE_CHECKING:
    from postline.accounts.ports import AccountStore
    from postline.audit.ports import AuditStore
    from postline.keys.ports import KeyStore, SecretHasher


class FakeHasher:
    """Keyed SHA-256, like the production hasher with a fixed pepper."""

    def __init__(self, pepper: str = "test-pepper") -> None:
        self._pepper = pepper.encode()
        self.calls = 0

    def hash(self, secret: str) -> str:
        self.calls += 1
        return hmac.new(self._pepper, secret.encode(), hashlib.sha256).hexdigest()


def _audit_sort_key(entry: AuditEntry) -> str:
    # The adapter's sort key: AUDIT#<created_at>#<id>, read in descending order.
    return f"{entry.created_at:%Y-%m-%dT%H:%M:%S.%f}#{entry.id}"


class InMemoryStore:
    """AccountStore + KeyStore + AuditStore with the DynamoDB adapter's semantics (see module doc)."""

    def __init__(self) -> None:
        self._accounts: dict[str, dict[str, Any]] = {}
        self._key_counts: dict[str, int] = {}
        self._keys: dict[tuple[str, str], dict[str, Any]] = {}
        self._hash_lookup: dict[str, tuple[str, str]] = {}
        self._known: dict[str, tuple[str, str]] = {}  # what find_key_by_hash found: the store's instance cache
        self._audit: list[AuditEntry] = []
        self._platform_paused = False
        self.touch_calls: list[tuple[str, datetime]] = []  # every touch_last_used call
        self.touch_writes = 0  # the calls that passed the once-a-minute condition

    # -- audit ---------------------------------------------------------------------------------------

    def record(self, entry: AuditEntry) -> None:
        self._audit.append(AuditEntry.model_validate(entry.model_dump(mode="json")))

    def list_audit(self, account_id: str, *, page: int, per_page: int) -> tuple[list[AuditEntry], int]:
        entries = sorted(
            (e for e in self._audit if e.account_id == account_id),
            key=_audit_sort_key,
            reverse=True,
        )
        start, stop = page_window(page, per_page)
        return [e.model_copy() for e in entries[start:stop]], len(entries)

    # -- accounts ------------------------------------------------------------------------------------

    def get_account(self, account_id: str) -> Account | None:
        data = self._accounts.get(account_id)
        return Account.model_validate(data) if data is not None else None

    def create_account(self, account: Account, audit: AuditEntry) -> None:
        if account.id in self._accounts:
            raise ValidationFailed(f"account {account.id} already exists")
        self._accounts[account.id] = {**account.model_dump(mode="json"), "list_count": 0}  # as the adapter
        self._key_counts[account.id] = 0
        self.record(audit)

    def update_account(self, account: Account, audit: AuditEntry) -> None:
        if account.id not in self._accounts:
            raise NotFound(f"account {account.id} not found")
        stored = self._accounts[account.id]
        # SET of every field but id, created_at, list_count and the organisation's, as the adapter does.
        fields = account.model_dump(
            mode="json", exclude={"id", "created_at", "list_count", "default_ip_pool_id", *ORGANISATION_FIELDS}
        )
        self._accounts[account.id] = {**stored, **fields}
        self.record(audit)

    def platform_sending_paused(self) -> bool:
        return self._platform_paused

    def set_platform_sending_paused(self, paused: bool, audit: AuditEntry) -> None:
        self._platform_paused = paused
        self.record(audit)

    # -- keys ----------------------------------------------------------------------------------------

    def find_key_by_hash(self, key_hash: str) -> tuple[str, str] | None:
        found = self._hash_lookup.get(key_hash)
        if found is not None:
            self._known[key_hash] = found  # as the store's instance cache keeps it, past a rotation
        return found

    def known_key(self, key_hash: str) -> tuple[str, str] | None:
        return self._known.get(key_hash)

    def get_key_with_account(self, account_id: str, key_id: str) -> tuple[ApiKey | None, Account | None]:
        return self.get_key(account_id, key_id), self.get_account(account_id)

    def get_key(self, account_id: str, key_id: str) -> ApiKey | None:
        data = self._keys.get((account_id, key_id))
        return ApiKey.model_validate(data) if data is not None else None

    def list_keys(self, account_id: str) -> list[ApiKey]:
        keys = [ApiKey.model_validate(data) for (owner, _), data in self._keys.items() if owner == account_id]
        return sorted(keys, key=lambda k: (k.created_at, k.id))

    def create_key(self, key: ApiKey, *, max_keys: int, audit: AuditEntry) -> None:
        count = self._key_counts.get(key.account_id)
        if key.account_id not in self._accounts or count is None or count >= max_keys:
            raise Forbidden(
                f"Your plan allows at most {max_keys} API keys; delete one or upgrade.",
                code="plan_limit_reached",
            )
        if (key.account_id, key.id) in self._keys:
            raise Conflict(f"API key {key.id} already exists")
        if key.key_hash in self._hash_lookup:
            raise Conflict("secret hash already taken (the adapter surfaces a raw ClientError here)")
        self._key_counts[key.account_id] = count + 1
        self._keys[(key.account_id, key.id)] = key.model_dump(mode="json")
        self._hash_lookup[key.key_hash] = (key.account_id, key.id)
        self.record(audit)

    def update_key(self, key: ApiKey, audit: AuditEntry) -> None:
        stored = self._keys.get((key.account_id, key.id))
        if stored is None:
            raise NotFound("API key not found")
        if stored["key_hash"] != key.key_hash:
            raise Conflict("API key changed concurrently; retry")
        self._keys[(key.account_id, key.id)] = key.model_dump(mode="json")
        self.record(audit)

    def rotate_key(self, key: ApiKey, *, previous_hash: str, audit: AuditEntry) -> None:
        stored = self._keys.get((key.account_id, key.id))
        if stored is None:
            raise NotFound("API key not found")
        if stored["key_hash"] != previous_hash:
            raise Conflict("API key rotated concurrently; retry")
        if key.key_hash in self._hash_lookup:
            raise Conflict("secret hash already taken (the adapter surfaces a raw ClientError here)")
        self._keys[(key.account_id, key.id)] = key.model_dump(mode="json")
        self._hash_lookup.pop(previous_hash, None)
        self._hash_lookup[key.key_hash] = (key.account_id, key.id)
        self.record(audit)

    def delete_key(self, key: ApiKey, audit: AuditEntry) -> None:
        if (key.account_id, key.id) not in self._keys:
            raise NotFound("API key not found")
        del self._keys[(key.account_id, key.id)]
        self._hash_lookup.pop(key.key_hash, None)
        self._key_counts[key.account_id] = self._key_counts.get(key.account_id, 0) - 1
        self.record(audit)

    def touch_last_used(self, key: ApiKey, now: datetime) -> None:
        self.touch_calls.append((key.id, now))
        stored = self._keys.get((key.account_id, key.id))
        if stored is None:
            return  # the adapter's condition fails on a deleted key and is swallowed
        previous = stored.get("last_used_at")
        epoch = int(now.timestamp())
        if previous is not None:
            previous_epoch = int(datetime.fromisoformat(previous).timestamp())
            if previous_epoch >= epoch - (LAST_USED_RESOLUTION_SECONDS - 1):
                return
        stored["last_used_at"] = now.isoformat()
        self.touch_writes += 1

    # -- for tests -----------------------------------------------------------------------------------

    def audit_entries(self) -> list[AuditEntry]:
        """Every recorded entry, in the order written (platform entries included)."""
        return [e.model_copy() for e in self._audit]

    def key_count(self, account_id: str) -> int:
        return self._key_counts[account_id]

    def plant_hash_lookup(self, key_hash: str, account_id: str, key_id: str) -> None:
        """Simulate a lookup item that lags behind its key (what the key item's hash check is for)."""
        self._hash_lookup[key_hash] = (account_id, key_id)

    def stored_strings(self) -> Iterator[str]:
        """Every string held anywhere in the store: item values, lookup keys and audit fields."""
        yield from _strings(self._accounts)
        yield from _strings(self._keys)
        for key_hash, (account_id, key_id) in self._hash_lookup.items():
            yield from (key_hash, account_id, key_id)
        for entry in self._audit:
            yield from _strings(entry.model_dump(mode="json"))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _hasher: SecretHasher = FakeHasher()
    _keys: KeyStore = InMemoryStore()
    _accounts: AccountStore = InMemoryStore()
    _audit: AuditStore = InMemoryStore()
