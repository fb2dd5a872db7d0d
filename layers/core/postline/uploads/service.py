"""Hosted uploads: create (a file in the body, or a presigned POST), list, get, update, delete,
complete, a short-lived download link; the hosted link's redirect (people's downloads counted,
scanners' recorded apart: shared/scanners.py); the sweep that settles, releases and expires."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from datetime import datetime, timedelta

from postline.audit.domain import AuditEntry
from postline.audit.service import new_audit_entry
from postline.keys.identity import Principal
from postline.keys.models import DeleteConfirmation
from postline.shared.errors import Conflict, Forbidden, Gone, NotFound, ValidationFailed
from postline.shared.ports import Clock, IdFactory
from postline.shared.scanners import Visitor
from postline.uploads.domain import (
    DIRECT_MAX_BYTES,
    DOWNLOAD_SECONDS,
    MAX_LISTED,
    NOT_IN_PLAN,
    QUOTA_EXCEEDED,
    SNIFF_BYTES,
    UPLOAD_PREFIX,
    UPLOAD_WINDOW,
    Upload,
    UploadStatus,
    hosted_url,
    object_key,
    read_download_token,
    safe_filename,
)
from postline.uploads.models import (
    PresignedPost,
    UploadCreate,
    UploadCreated,
    UploadDownloadLink,
    UploadList,
    UploadOut,
    UploadUpdate,
    upload_out,
)
from postline.uploads.ports import TrackingHosts, UploadAccounts, UploadFiles, UploadStore
from postline.uploads.sniffing import OCTET_STREAM, sniff


class UploadService:
    def __init__(
        self,
        *,
        uploads: UploadStore,
        files: UploadFiles,
        hosts: TrackingHosts,
        accounts: UploadAccounts,
        secret: Callable[[], bytes],
        ids: IdFactory,
        clock: Clock,
    ) -> None:
        self._uploads = uploads
        self._files = files
        self._hosts = hosts
        self._accounts = accounts
        self._secret = secret
        self._ids = ids
        self._clock = clock

    # -- the API ------------------------------------------------------------------------------------

    def create(self, principal: Principal, request: UploadCreate) -> UploadCreated:
        account = principal.account
        quota = account.upload_quota_bytes
        if quota == 0:
            raise Forbidden(
                "Hosted uploads need a paid plan (pay-as-you-go included); the Free plan holds 0 bytes.",
                code=NOT_IN_PLAN,
            )
        now = self._clock.now()
        self._future(request.expires_at, now)
        data = self._body(request)
        size = len(data) if data is not None else request.size_bytes or 0
        if size > quota:
            raise Forbidden(f"A file of {size} bytes exceeds the uploads quota of {quota} bytes.", code=QUOTA_EXCEEDED)
        upload = Upload(
            id=self._ids.new_id(UPLOAD_PREFIX),
            account_id=account.id,
            filename=safe_filename(request.filename),
            size_bytes=size,
            reserved_bytes=size,
            expires_at=request.expires_at,
            upload_expires_at=now + UPLOAD_WINDOW,
            created_at=now,
        )
        self._uploads.reserve(upload, quota, self._audit(principal, "upload.created", upload, upload.filename))
        if data is None:
            url, fields = self._files.presigned_post(upload, size, int(UPLOAD_WINDOW.total_seconds()))
            post = PresignedPost(url=url, fields=fields, max_bytes=size, expires_at=upload.upload_expires_at or now)
            return UploadCreated(**self._out(upload).model_dump(), upload=post)
        try:
            self._files.put(upload, data, OCTET_STREAM)
        except Exception:
            self._uploads.release(upload)
            raise
        settled = self._settle(upload, quota, data[:SNIFF_BYTES]) or upload
        return UploadCreated(**self._out(settled).model_dump(), upload=None)

    def list(self, principal: Principal) -> UploadList:
        """Reads only (a GET): an upload past expires_at is left out, and the sweep deletes it."""
        now = self._clock.now()
        host = self._hosts.branded_host(principal.account.id)
        listed = self._uploads.list_uploads(principal.account.id, MAX_LISTED)
        items = [self._out_on(upload, host) for upload in listed if not upload.expired(now)]
        used = self._uploads.used_bytes(principal.account.id)
        return UploadList(items=items, used_bytes=used, quota_bytes=principal.account.upload_quota_bytes)

    def get(self, principal: Principal, upload_id: str) -> UploadOut:
        return self._out(self._require(principal, upload_id, write=False))

    def complete(self, principal: Principal, upload_id: str) -> UploadOut:
        """The presigned upload's file is in S3: settle it with the size S3 holds, its type sniffed."""
        upload = self._require(principal, upload_id)
        if upload.status is UploadStatus.READY:
            return self._out(upload)
        audit = self._audit(principal, "upload.completed", upload, upload.filename)
        settled = self._settle(upload, principal.account.upload_quota_bytes, audit=audit)
        if settled is not None:
            return self._out(settled)
        if upload.abandoned(self._clock.now()):
            self._uploads.release(upload)
            raise NotFound(f"Upload {upload_id}'s upload window ended without a file; create it again.")
        raise Conflict(f"Upload {upload_id} has no file yet: POST it to the upload URL first, then retry.")

    def update(self, principal: Principal, upload_id: str, request: UploadUpdate) -> UploadOut:
        upload = self._require(principal, upload_id)
        changes = request.model_dump(exclude_unset=True)
        if "filename" in changes:
            if changes["filename"] is None:
                raise ValidationFailed("filename cannot be null.")
            changes["filename"] = safe_filename(changes["filename"])
        if "expires_at" in changes:
            self._future(changes["expires_at"], self._clock.now())
        updated = upload.model_copy(update=changes)
        details = ", ".join(f"{name} {value}" for name, value in changes.items()) or None
        self._uploads.update(updated, self._audit(principal, "upload.updated", updated, details))
        return self._out(updated)

    def delete(self, principal: Principal, upload_id: str) -> DeleteConfirmation:
        upload = self._require(principal, upload_id)
        self._uploads.delete(upload, self._audit(principal, "upload.deleted", upload, upload.filename))
        self._files.delete(upload.key)
        return DeleteConfirmation(message=f"Upload {upload_id} deleted.")

    def download_link(self, principal: Principal, upload_id: str) -> UploadDownloadLink:
        """A short-lived S3 URL for the account itself: counts no download."""
        upload = self._require(principal, upload_id, write=False)
        if upload.status is not UploadStatus.READY:
            return UploadDownloadLink(url=None, expires_at=None)
        expires_at = self._clock.now() + timedelta(seconds=DOWNLOAD_SECONDS)
        return UploadDownloadLink(url=self._files.download_url(upload, DOWNLOAD_SECONDS), expires_at=expires_at)

    # -- the hosted link ------------------------------------------------------------------------

    def follow(self, token: str, visitor: Visitor, delivered_at: datetime | None = None) -> str:
        """Where the hosted link redirects (a short-lived S3 URL); the hit is counted as a person's
        download, or recorded as a scanner's (shared/scanners.py; `delivered_at`: the message's delivery,
        when the link was followed from one). 404 for a bad link, 410 once expired."""
        names = read_download_token(token, self._secret())
        upload = self._uploads.get_upload(*names) if names else None
        if upload is None or upload.status is UploadStatus.PENDING:
            raise NotFound("This link is not valid.")
        now = self._clock.now()
        if upload.expired(now):
            self._expire(upload)
            raise Gone("This file has expired.")
        reason = visitor.scanner_reason(delivered_at=delivered_at, now=now)
        self._uploads.record_hit(upload, human=reason is None, reason=reason, ip=visitor.ip,
                                 user_agent=visitor.user_agent, at=now)  # fmt: skip
        return self._files.download_url(upload, DOWNLOAD_SECONDS)

    # -- the sweep -------------------------------------------------------------------------------

    def sweep(self, remaining: Callable[[], float] = lambda: 60.0, batch: int = 100) -> dict[str, int]:
        """Settles a pending upload whose file arrived but was never completed, releases one whose
        window ended without a file, expires what is past expires_at, purges what expired
        EXPIRED_KEPT ago; stops with time to spare."""
        counts = {"settled": 0, "released": 0, "expired": 0, "purged": 0, "skipped": 0}
        while remaining() > 5:
            due = self._uploads.due(self._clock.now(), batch)
            if not due:
                break
            for account_id, upload_id, due_key in due:
                counts[self._sweep_one(account_id, upload_id)] += 1
                self._uploads.clear_due(due_key)
        return counts

    def _sweep_one(self, account_id: str, upload_id: str) -> str:
        upload = self._uploads.get_upload(account_id, upload_id)
        now = self._clock.now()
        if upload is None:  # deleted while pending: a POST made after that must not stay behind
            self._files.delete(object_key(account_id, upload_id))
            return "skipped"
        if upload.abandoned(now):
            account = self._accounts.get_account(account_id)
            quota = account.upload_quota_bytes if account is not None else 0
            try:
                if self._settle(upload, quota) is not None:
                    return "settled"
            except Forbidden:
                return "released"  # over the quota: its object deleted and its bytes given back
            self._files.delete(upload.key)  # a POST that arrived after the window ended
            self._uploads.release(upload)
            return "released"
        if upload.status is UploadStatus.READY and upload.expired(now):
            self._expire(upload)
            return "expired"
        due_at = upload.due_at()
        if upload.status is UploadStatus.EXPIRED and due_at is not None and now >= due_at:
            return "purged" if self._uploads.purge(upload) else "skipped"
        return "skipped"

    # -- helpers ---------------------------------------------------------------------------------

    def _settle(
        self, upload: Upload, quota: int, head: bytes | None = None, audit: AuditEntry | None = None
    ) -> Upload | None:
        """Settles the pending upload with the size S3 holds; None while there is no object. Over the
        quota (a POST larger than reserved, and no room), the object is deleted and the reservation released."""
        size = self._files.size(upload)
        if size is None:
            return None
        content_type = sniff(head if head is not None else self._files.head_bytes(upload, SNIFF_BYTES))
        try:
            settled = self._uploads.settle(upload, size, content_type, self._clock.now(), quota, audit)
        except Forbidden:
            self._files.delete(upload.key)
            self._uploads.release(upload)
            raise
        return settled or self._uploads.get_upload(upload.account_id, upload.id)

    def _expire(self, upload: Upload) -> None:
        if upload.status is not UploadStatus.EXPIRED:
            self._files.delete(upload.key)  # first: a crash before the mark leaves it for the next read or sweep
            self._uploads.expire(upload)

    def _require(self, principal: Principal, upload_id: str, *, write: bool = True) -> Upload:
        """The account's upload; 404 when there is none, 410 once expired (a write route deletes its
        file then; a read leaves that to the sweep: GETs never write)."""
        upload = self._uploads.get_upload(principal.account.id, upload_id)
        if upload is None:
            raise NotFound(f"No upload {upload_id} in this account.")
        if upload.expired(self._clock.now()):
            if write:
                self._expire(upload)
            expired_at = upload.expires_at.isoformat() if upload.expires_at else "its expiry"
            raise Gone(f"Upload {upload_id} expired at {expired_at}; its file is no longer served.")
        return upload

    def _out(self, upload: Upload) -> UploadOut:
        return self._out_on(upload, self._hosts.branded_host(upload.account_id))

    def _out_on(self, upload: Upload, host: str | None) -> UploadOut:
        """The upload with its hosted link on `host` (the account's branded tracking host), if any."""
        url = hosted_url(host, upload.account_id, upload.id, self._secret()) if host else None
        return upload_out(upload, url)

    def _body(self, request: UploadCreate) -> bytes | None:
        if request.content is None:
            if request.size_bytes is None:
                raise ValidationFailed(
                    f"Give content (the file, base64, up to {DIRECT_MAX_BYTES} bytes) "
                    "or size_bytes (a presigned upload)."
                )
            return None
        if request.size_bytes is not None:
            raise ValidationFailed("Give content or size_bytes, not both.")
        try:
            data = base64.b64decode(request.content, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValidationFailed("content: not valid base64.") from exc
        if not data:
            raise ValidationFailed("content: the file is empty.")
        if len(data) > DIRECT_MAX_BYTES:
            raise ValidationFailed(f"content: over {DIRECT_MAX_BYTES} bytes; give size_bytes for a presigned upload.")
        return data

    @staticmethod
    def _future(moment: datetime | None, now: datetime) -> None:
        if moment is not None and moment <= now:
            raise ValidationFailed("expires_at: must be in the future.")

    def _audit(self, principal: Principal, action: str, upload: Upload, details: str | None) -> AuditEntry:
        return new_audit_entry(
            self._ids, principal.actor(), upload.account_id, action, upload.id, details, now=self._clock.now()
        )
