"""Fakes of the uploads area's ports: the store (quota item, due index, hits), the S3 files and the
branded tracking hosts."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from postline.accounts.domain import Account
from postline.audit.domain import AuditEntry
from postline.shared.errors import Conflict, Forbidden, NotFound
from postline.uploads.domain import QUOTA_EXCEEDED, Upload, UploadStatus

if TYPE_CHECKING:
    from postline.uploads.ports import TrackingHosts, UploadAccounts, UploadFiles, UploadStore


class InMemoryUploads:
    """UploadStore as the adapter keeps it: committed bytes (reserved and settled) and used bytes per
    account, a reservation only within the quota, settles and releases conditional on the upload still
    being pending as read, the due index by time."""

    def __init__(self) -> None:
        self.uploads: dict[tuple[str, str], Upload] = {}
        self.committed: dict[str, int] = {}
        self.used: dict[str, int] = {}
        self.audits: list[AuditEntry] = []
        self.hits_recorded: list[dict[str, Any]] = []
        self.due_index: dict[str, tuple[str, str]] = {}

    def get_upload(self, account_id: str, upload_id: str) -> Upload | None:
        return self.uploads.get((account_id, upload_id))

    def list_uploads(self, account_id: str, limit: int) -> list[Upload]:
        mine = [u for (a, _), u in self.uploads.items() if a == account_id and u.status is not UploadStatus.EXPIRED]
        return sorted(mine, key=lambda u: u.id, reverse=True)[:limit]

    def used_bytes(self, account_id: str) -> int:
        return self.used.get(account_id, 0)

    def reserve(self, upload: Upload, quota_bytes: int, audit: AuditEntry) -> None:
        self._grow(upload.account_id, upload.reserved_bytes, quota_bytes)
        self.uploads[(upload.account_id, upload.id)] = upload
        self.audits.append(audit)
        self._due(upload)

    def settle(self, upload: Upload, size: int, content_type: str, now: datetime, quota_bytes: int,
               audit: AuditEntry | None = None) -> Upload | None:  # fmt: skip
        stored = self.get_upload(upload.account_id, upload.id)
        if (
            stored is None
            or stored.status is not UploadStatus.PENDING
            or stored.reserved_bytes != upload.reserved_bytes
        ):
            return None
        self._grow(upload.account_id, size - upload.reserved_bytes, quota_bytes)
        self.used[upload.account_id] = self.used.get(upload.account_id, 0) + size
        settled = upload.model_copy(update={"size_bytes": size, "reserved_bytes": size, "content_type": content_type,
                                            "status": UploadStatus.READY, "completed_at": now})  # fmt: skip
        self.uploads[(upload.account_id, upload.id)] = settled
        if audit is not None:
            self.audits.append(audit)
        self._due(settled)
        return settled

    def release(self, upload: Upload) -> bool:
        stored = self.get_upload(upload.account_id, upload.id)
        if stored is None or stored.status is not UploadStatus.PENDING:
            return False
        del self.uploads[(upload.account_id, upload.id)]
        self.committed[upload.account_id] -= stored.reserved_bytes
        return True

    def expire(self, upload: Upload) -> bool:
        stored = self.get_upload(upload.account_id, upload.id)
        if stored is None or stored.status is not upload.status or stored.reserved_bytes != upload.reserved_bytes:
            return False
        self._give_back(stored)
        expired = stored.model_copy(update={"status": UploadStatus.EXPIRED, "reserved_bytes": 0})
        self.uploads[(upload.account_id, upload.id)] = expired
        self._due(expired)
        return True

    def purge(self, upload: Upload) -> bool:
        stored = self.get_upload(upload.account_id, upload.id)
        if stored is None or stored.status is not UploadStatus.EXPIRED:
            return False
        del self.uploads[(upload.account_id, upload.id)]
        return True

    def update(self, upload: Upload, audit: AuditEntry) -> None:
        stored = self.get_upload(upload.account_id, upload.id)
        if stored is None:
            raise NotFound(f"upload {upload.id} not found")
        if stored.status is UploadStatus.EXPIRED:
            raise Conflict(f"upload {upload.id} changed concurrently; retry")
        self.uploads[(upload.account_id, upload.id)] = stored.model_copy(
            update={"filename": upload.filename, "expires_at": upload.expires_at}
        )
        self.audits.append(audit)
        self._due(upload)

    def delete(self, upload: Upload, audit: AuditEntry) -> None:
        stored = self.uploads.pop((upload.account_id, upload.id), None)
        if stored is None:
            raise NotFound(f"upload {upload.id} not found")
        self._give_back(stored)
        self.audits.append(audit)

    def record_hit(self, upload: Upload, *, human: bool, reason: str | None, ip: str | None,
                   user_agent: str | None, at: datetime) -> None:  # fmt: skip
        stored = self.get_upload(upload.account_id, upload.id)
        if stored is None:
            raise NotFound(f"upload {upload.id} not found")
        field = "download_count" if human else "scanner_count"
        self.uploads[(upload.account_id, upload.id)] = stored.model_copy(update={field: getattr(stored, field) + 1})
        self.hits_recorded.append({"upload_id": upload.id, "human": human, "reason": reason, "ip": ip,
                                   "user_agent": user_agent, "at": at})  # fmt: skip

    def due(self, now: datetime, limit: int) -> list[tuple[str, str, str]]:
        ready = sorted(key for key in self.due_index if key <= now.isoformat() + "~")
        return [(*self.due_index[key], key) for key in ready[:limit]]

    def clear_due(self, due_key: str) -> None:
        self.due_index.pop(due_key, None)

    def _due(self, upload: Upload) -> None:
        due_at = upload.due_at()
        if due_at is not None:
            self.due_index[f"{due_at.isoformat()}#{upload.account_id}#{upload.id}"] = (upload.account_id, upload.id)

    def _grow(self, account_id: str, delta: int, quota_bytes: int) -> None:
        committed = self.committed.get(account_id, 0)
        if delta > 0 and committed + delta > quota_bytes:
            raise Forbidden(f"The uploads quota of {quota_bytes} bytes is reached", code=QUOTA_EXCEEDED)
        self.committed[account_id] = committed + delta

    def _give_back(self, stored: Upload) -> None:
        self.committed[stored.account_id] -= stored.reserved_bytes
        if stored.status is UploadStatus.READY:
            self.used[stored.account_id] -= stored.size_bytes


class InMemoryFiles:
    """UploadFiles as a dict of keys to bytes; a presigned POST is noted, its 'upload' done by `arrive`."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.posts: dict[str, int] = {}  # key -> max bytes

    def put(self, upload: Upload, data: bytes, content_type: str) -> None:
        self.objects[upload.key] = data

    def arrive(self, upload_id: str, data: bytes) -> None:
        """What a client's POST to the presigned URL does (S3 holds what was sent, whatever was declared)."""
        key = next(k for k in self.posts if k.endswith("/" + upload_id))
        self.objects[key] = data

    def size(self, upload: Upload) -> int | None:
        data = self.objects.get(upload.key)
        return None if data is None else len(data)

    def head_bytes(self, upload: Upload, count: int) -> bytes:
        return self.objects[upload.key][:count]

    def presigned_post(self, upload: Upload, max_bytes: int, expires_in: int) -> tuple[str, dict[str, str]]:
        self.posts[upload.key] = max_bytes
        return "https://s3.example/bucket", {"key": upload.key, "policy": "p", "x-amz-signature": "s"}

    def download_url(self, upload: Upload, expires_in: int) -> str:
        return f"https://s3.example/bucket/{upload.key}?expires={expires_in}"

    def delete(self, key: str) -> None:
        self.objects.pop(key, None)


class FixedHosts:
    def __init__(self, hosts: dict[str, str] | None = None) -> None:
        self.hosts = hosts or {}

    def branded_host(self, account_id: str) -> str | None:
        return self.hosts.get(account_id)


class Accounts:
    def __init__(self, *accounts: Account) -> None:
        self.accounts = {a.id: a for a in accounts}

    def get_account(self, account_id: str) -> Account | None:
        return self.accounts.get(account_id)


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _uploads: UploadStore = InMemoryUploads()
    _files: UploadFiles = InMemoryFiles()
    _hosts: TrackingHosts = FixedHosts()
    _accounts: UploadAccounts = Accounts()
