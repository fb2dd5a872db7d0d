"""Hosted uploads: files an account keeps with us and links to from its mail.

An upload is created `pending` with its bytes reserved against the account's quota (a conditional
update: concurrent creates never hold more than the quota together), and becomes `ready` when its
bytes are found in S3: a small file sent in the request's body at once, a large one after the client
POSTs it to the presigned URL and calls `complete` (or the sweep finds it). It is settled with the
size S3 holds, not the size the client claimed; an upload never completed is released by the sweep
once its upload window ends. After `expires_at` it is `expired`: the API and its link answer 410,
its object is deleted and its bytes freed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import unicodedata
from datetime import datetime, timedelta
from enum import StrEnum
from urllib.parse import quote

from pydantic import Field

from postline.shared.base import Model

UPLOAD_PREFIX = "up_"
# A body's file travels base64 in the JSON request: 4 MiB decoded is under 5.6 MB encoded, inside
# Lambda's 6 MB request payload (and API Gateway's 10 MB). Larger files go through a presigned POST.
DIRECT_MAX_BYTES = 4 * 1024 * 1024
PRESIGNED_MAX_BYTES = 5 * 1000**3  # S3's largest single POST/PUT
UPLOAD_WINDOW = timedelta(hours=1)  # a presigned POST's lifetime; the sweep releases it after that
DOWNLOAD_SECONDS = 300  # an UploadDownloadLink's, and the hosted link's redirect's, lifetime
SNIFF_BYTES = 8192  # what the content type is sniffed from
MAX_FILENAME = 255
EXPIRED_KEPT = timedelta(days=30)  # an expired upload answers 410 this long, then 404 (the sweep purges it)
MAX_LISTED = 1000  # the upload list's items: the newest 1,000 (the quota bounds how many there are)

QUOTA_EXCEEDED = "upload_quota_exceeded"
NOT_IN_PLAN = "uploads_not_in_plan"


class UploadStatus(StrEnum):
    PENDING = "pending"  # reserved; the file is on its way
    READY = "ready"
    EXPIRED = "expired"  # past expires_at: 410, the object deleted, its bytes freed


class Upload(Model):
    id: str
    account_id: str
    filename: str
    content_type: str = "application/octet-stream"
    size_bytes: int = Field(ge=0)  # settled: what S3 holds; pending: what the client declared
    reserved_bytes: int = Field(ge=0)  # what it holds of the quota now
    status: UploadStatus = UploadStatus.PENDING
    download_count: int = 0  # people's downloads through the hosted link
    scanner_count: int = 0  # link scanners' hits on it, recorded apart
    expires_at: datetime | None = None
    upload_expires_at: datetime | None = None  # a pending upload's presigned window's end
    created_at: datetime
    completed_at: datetime | None = None

    @property
    def key(self) -> str:
        return object_key(self.account_id, self.id)

    def expired(self, now: datetime) -> bool:
        return self.status is UploadStatus.EXPIRED or (self.expires_at is not None and now >= self.expires_at)

    def abandoned(self, now: datetime) -> bool:
        return (
            self.status is UploadStatus.PENDING and self.upload_expires_at is not None and now >= self.upload_expires_at
        )

    def due_at(self) -> datetime | None:
        """When the sweep must look at it next: a pending upload's window's end, a ready one's expiry, an
        expired one's purge."""
        if self.status is UploadStatus.PENDING:
            return self.upload_expires_at
        if self.status is UploadStatus.EXPIRED:
            return (self.expires_at or self.created_at) + EXPIRED_KEPT
        return self.expires_at


def object_key(account_id: str, upload_id: str) -> str:
    return f"uploads/{account_id}/{upload_id}"


# -- filenames -------------------------------------------------------------------------------------

_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_UNSAFE = re.compile(r'["\\;:*?<>|]')


def safe_filename(name: str) -> str:
    """The name a download is saved as: the last path segment, NFC, without control, bidi-override or
    quoting characters (no header injection, no ../, no spoofed extension), at most MAX_FILENAME
    characters, never empty or a dot name."""
    text = unicodedata.normalize("NFC", name).replace("\\", "/").rsplit("/", 1)[-1]
    text = " ".join(_UNSAFE.sub("_", _INVISIBLE.sub("", text)).split()).lstrip(".").strip()
    if len(text) > MAX_FILENAME:
        _, dot, ext = text.rpartition(".")
        keep = ext if dot and 0 < len(ext) <= 16 else ""
        text = (text[: MAX_FILENAME - len(keep) - 1] + "." + keep) if keep else text[:MAX_FILENAME]
    return text or "file"


def content_disposition(filename: str) -> str:
    """`attachment` (never inline), with an ASCII fallback and the UTF-8 name (RFC 6266, RFC 8187)."""
    name = safe_filename(filename)
    ascii_name = name.encode("ascii", "replace").decode().replace("?", "_")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


# Types a browser would render as a page or run as script: served as plain bytes to download.
ACTIVE_TYPES = frozenset(
    {
        "text/html",
        "application/xhtml+xml",
        "image/svg+xml",
        "text/xml",
        "application/xml",
        "text/javascript",
        "application/javascript",
        "application/x-shockwave-flash",
    }
)


def served_type(content_type: str) -> str:
    """The Content-Type a download is served with: active content only ever as octet-stream."""
    return "application/octet-stream" if content_type in ACTIVE_TYPES else content_type


# -- the hosted link's token -----------------------------------------------------------------------

_CONTEXT = b"postline upload download\x1f"
_SIGNATURE_BYTES = 16


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def download_token(account_id: str, upload_id: str, secret: bytes) -> str:
    """`<account>.<upload>.<signature>`: the link names its upload without a lookup and cannot be forged."""
    body = f"{account_id}.{upload_id}"
    signature = hmac.new(secret, _CONTEXT + body.encode(), hashlib.sha256).digest()[:_SIGNATURE_BYTES]
    return f"{body}.{_b64(signature)}"


def read_download_token(token: str, secret: bytes) -> tuple[str, str] | None:
    """(account, upload) of a token this service signed; None for anything else."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[1].startswith(UPLOAD_PREFIX):
        return None
    expected = download_token(parts[0], parts[1], secret)
    return (parts[0], parts[1]) if hmac.compare_digest(expected.encode(), token.encode()) else None


DOWNLOAD_PATH = "/v3/track/download"


def hosted_url(host: str, account_id: str, upload_id: str, secret: bytes) -> str:
    return f"https://{host}{DOWNLOAD_PATH}/{download_token(account_id, upload_id, secret)}"
