"""What the uploads services need from outside.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.audit.domain import AuditEntry
    from postline.uploads.domain import Upload


class UploadStore(Protocol):
    """Uploads, the account's quota item (committed bytes: reserved and settled; used bytes: settled)
    and the sweep's index of when each upload is due."""

    def get_upload(self, account_id: str, upload_id: str) -> Upload | None: ...

    def list_uploads(self, account_id: str, limit: int) -> list[Upload]:
        """Its newest `limit` uploads that are not expired, newest first."""
        ...

    def used_bytes(self, account_id: str) -> int:
        """What its ready uploads hold."""
        ...

    def reserve(self, upload: Upload, quota_bytes: int, audit: AuditEntry) -> None:
        """Stores the pending upload and adds its reserved_bytes to the committed bytes, only while
        they stay within `quota_bytes`: else Forbidden(upload_quota_exceeded), and nothing is written."""
        ...

    def settle(self, upload: Upload, size: int, content_type: str, now: datetime, quota_bytes: int,
               audit: AuditEntry | None = None) -> Upload | None:  # fmt: skip
        """The pending upload made ready (with `audit`, in the same transaction) with the size S3
        holds: the committed bytes move by the difference from what was reserved (more only within
        `quota_bytes`: else Forbidden(upload_quota_exceeded)), the used bytes by `size`. None when it is
        no longer pending as it was read (settled, released or deleted meanwhile)."""
        ...

    def release(self, upload: Upload) -> bool:
        """Deletes the pending upload and gives its reservation back; False when it was not pending."""
        ...

    def expire(self, upload: Upload) -> bool:
        """Marks it expired (kept so the API answers 410) and gives its bytes back; False when it
        changed meanwhile."""
        ...

    def purge(self, upload: Upload) -> bool:
        """Deletes an expired upload's record for good (its 410 ends); False when it is not expired."""
        ...

    def update(self, upload: Upload, audit: AuditEntry) -> None:
        """Writes its filename and expires_at while it is not expired (NotFound when gone)."""
        ...

    def delete(self, upload: Upload, audit: AuditEntry) -> None:
        """Deletes it and gives its bytes back (NotFound when gone)."""
        ...

    def record_hit(self, upload: Upload, *, human: bool, reason: str | None, ip: str | None,
                   user_agent: str | None, at: datetime) -> None:  # fmt: skip
        """One hit on its hosted link: a person's adds to download_count, a scanner's to
        scanner_count; each is kept as a record of its own (the rule that matched, address, agent)."""
        ...

    def due(self, now: datetime, limit: int) -> list[tuple[str, str, str]]:
        """Up to `limit` (account, upload, due key) the sweep must look at, the most overdue first."""
        ...

    def clear_due(self, due_key: str) -> None: ...


class UploadFiles(Protocol):
    """The uploads' objects (S3)."""

    def put(self, upload: Upload, data: bytes, content_type: str) -> None: ...

    def size(self, upload: Upload) -> int | None:
        """The size S3 holds (a HEAD); None while there is no object."""
        ...

    def head_bytes(self, upload: Upload, count: int) -> bytes:
        """The object's first `count` bytes (a ranged GET)."""
        ...

    def presigned_post(self, upload: Upload, max_bytes: int, expires_in: int) -> tuple[str, dict[str, str]]:
        """(url, form fields) of a POST of at most `max_bytes` to the upload's key."""
        ...

    def download_url(self, upload: Upload, expires_in: int) -> str:
        """A presigned GET that saves the file as an attachment under its safe name."""
        ...

    def delete(self, key: str) -> None:
        """Deletes the object at `key` (an upload's `key`); nothing when there is none."""
        ...


class TrackingHosts(Protocol):
    def branded_host(self, account_id: str) -> str | None:
        """The tracking host of one of the account's verified domains whose tracking CNAME was found."""
        ...


class UploadAccounts(Protocol):
    """The sweep's way to an upload's account (its quota), as the account store has it."""

    def get_account(self, account_id: str) -> Account | None: ...
