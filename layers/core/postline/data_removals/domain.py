"""Data removals (erasure requests): what one is, how its address is hashed and scrubbed, and the
signed receipt a completed one carries. Pure: no I/O, no clock reads.

A removal erases everything one account (and, asked by an organisation's parent, each of its
subaccounts) holds about one address. The address is kept in plaintext only while the removal
runs (the worker needs it to find things); a finished removal keeps the keyed hash alone.

The keyed hash is HMAC-SHA256 under the platform's pepper (the one API keys are hashed with,
keys/hasher.py) of `erasure`, the account id and the lowercased address: the same address in two
accounts hashes apart, and a leaked table alone cannot test guesses. Recipient fields that must
stay (a message row kept for counts) hold `erasure_token`, a syntactically valid address made
from that hash, so nothing that reads them has to know about erasure.
"""

from __future__ import annotations

import base64
import json
import re
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any
from urllib.parse import quote

from pydantic import Field

from postline.shared.base import Model

MAX_BATCH = 100  # addresses one request may name (the batch form): one removal each
ERASED_DOMAIN = "erased.invalid"  # RFC 2606: never a real mailbox
RECEIPT_VERSION = "postline.erasure-receipt.v1"
JOB_KEPT = timedelta(days=365 * 6)  # a removal and its receipt: kept as long as a DPO may need them
MAX_ATTEMPTS = 5  # deliveries of one removal's message before it is failed


class RemovalStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


# The steps a worker goes through, in order; each is resumable from its own cursor.
STEPS: tuple[str, ...] = (
    "messages",  # messages and their events (and the webhook deliveries of those events)
    "deliveries",  # webhook delivery history whose payload names the address
    "verifications",  # recipient activity, bulk job rows and results
    "files",  # export, verification and suppression files that contain the address
    "suppressions",  # plaintext entries -> one keyed-hash entry
    "records",  # the account's other records (lists' members, jobs, audit details) naming it
    "replays",  # idempotency records whose stored reply names it
    "uploads",  # upload download records (not built yet: the uploads area adds its eraser)
)


class RemovalCounts(Model):
    """What a removal erased (the spec's counts). Adding two is what a resumed step does."""

    messages: int = 0
    events: int = 0
    verifications: int = 0
    upload_downloads: int = 0
    dek_tombstoned: int = 0  # a message's data key destroyed while its row stays (counts, status)
    body_deks_destroyed: int = 0  # data keys destroyed: those message bodies can never be decrypted
    exports_purged: int = 0  # files deleted because they contained the address
    already_erased: bool = False  # an earlier removal of this address had completed

    def plus(self, other: Tally) -> RemovalCounts:
        data = self.model_dump()
        for name, value in other.items():
            data[name] = data.get(name, 0) + value
        return RemovalCounts.model_validate(data)


Tally = dict[str, int]  # what one step erased, by count name (only the non-zero ones)


class Batch(Model):
    """One bounded page of a step: what it erases (`work`, the holding's own JSON: keys, ids), what
    that counts, and where the step's next page starts (None: the step is done)."""

    work: dict[str, Any] = Field(default_factory=dict)
    tally: Tally = Field(default_factory=dict)
    next: dict[str, Any] | None = None


class DataRemovalJob(Model):
    """The stored removal (jobs table, REMOVAL#<id>)."""

    id: str
    account_id: str  # the account that asked
    status: RemovalStatus = RemovalStatus.PENDING
    email: str | None = None  # plaintext while it runs; None once it ended
    masked: str  # what GET shows once the plaintext is gone
    address_hash: str  # the requesting account's keyed hash
    accounts: list[str] = Field(default_factory=list)  # the accounts erased: the requester, its subaccounts
    hashes: dict[str, str] = Field(default_factory=dict)  # account id -> the address's keyed hash there
    step: int = 0  # index into (accounts x STEPS): where the worker stands
    cursor: dict[str, Any] | None = None  # the step's own position
    pending: Batch | None = None  # a batch counted and saved, not yet known to be erased
    counts: RemovalCounts = Field(default_factory=RemovalCounts)
    receipt: dict[str, Any] | None = None
    error: str | None = None
    attempt: int = 0
    created_at: datetime
    completed_at: datetime | None = None

    @property
    def total_steps(self) -> int:
        return len(self.accounts) * len(STEPS)

    def position(self) -> tuple[str, str]:
        """(account id, step name) the worker is at."""
        account, step = divmod(self.step, len(STEPS))
        return self.accounts[account], STEPS[step]


def erasure_hash_input(account_id: str, address: str) -> str:
    """What the pepper's HMAC is taken of (keys/hasher.py): domain-separated from API key hashes."""
    return f"erasure\n{account_id}\n{address.strip().lower()}"


def erasure_token(address_hash: str) -> str:
    """The stand-in for the address in fields that stay: valid syntax, no mailbox, no way back."""
    return f"erased-{address_hash[:24]}@{ERASED_DOMAIN}"


def mask(address: str) -> str:
    """a***@e***.com: what GET /v3/data-removals/{id} shows once the address is gone."""
    local, _, domain = address.partition("@")
    name, dot, tld = domain.rpartition(".")
    shown_domain = f"{name[:1]}***{dot}{tld}" if name else f"{domain[:1]}***"
    return f"{local[:1]}***@{shown_domain}"


def forms(address: str) -> list[str]:
    """How the address may appear in stored text: as written, lowercased, URL-encoded (both cases
    and the encodings of '@' and '+'), and as a JSON string escapes nothing in an address."""
    lowered = address.lower()
    found = {address, lowered, quote(address, safe=""), quote(lowered, safe=""), quote(lowered, safe="@")}
    return sorted(found, key=len, reverse=True)


def _pattern(address: str) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(form) for form in forms(address)), re.IGNORECASE)


def mentions(text: str, address: str) -> bool:
    return bool(_pattern(address).search(text))


def scrub(value: Any, address: str, token: str) -> tuple[Any, bool]:
    """`value` (JSON-like: maps, lists, strings) with every form of the address replaced by
    `token`, map keys included; and whether anything changed."""
    pattern = _pattern(address)
    changed = False

    def walk(node: Any) -> Any:
        nonlocal changed
        if isinstance(node, str):
            replaced = pattern.sub(token, node)
            changed = changed or replaced != node
            return replaced
        if isinstance(node, dict):
            return {walk(k): walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(value), changed


def base64_forms(address: str) -> list[bytes]:
    """What any base64 stream holding the address (as written or lowercased) contains, at each of
    the three alignments: the characters that depend on the address's bytes alone."""
    found: list[bytes] = []
    for form in dict.fromkeys([address, address.lower()]):
        raw = form.encode()
        for offset in range(3):
            encoded = base64.b64encode(b"\0" * offset + raw)
            start = -(-offset * 4 // 3)  # the characters that mix in the padding bytes: skipped
            end = (offset + len(raw)) // 3 * 4  # the last group, mixed with what follows: skipped
            found.append(encoded[start:end])
    return found


def file_mentions(data: bytes, address: str) -> bool:
    """Whether a file holds the address in a text form (any case) or base64 (a MIME part)."""
    lowered = data.lower()
    return any(form.lower().encode() in lowered for form in forms(address)) or any(
        form in data for form in base64_forms(address)
    )


def receipt_payload(job: DataRemovalJob, completed_at: datetime) -> dict[str, Any]:
    """What a completed removal's receipt states: no address, only its keyed hash."""
    return {
        "version": RECEIPT_VERSION,
        "removal_id": job.id,
        "account_id": job.account_id,
        "accounts": job.accounts,
        "address_hash": f"hmac-sha256:{job.address_hash}",
        "counts": job.counts.model_dump(),
        "requested_at": job.created_at.isoformat(),
        "completed_at": completed_at.isoformat(),
    }


def canonical(payload: dict[str, Any]) -> bytes:
    """The bytes a receipt's signature covers: sorted keys, no spaces, UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
