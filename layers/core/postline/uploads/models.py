"""What the uploads routes take and return (the interface's Upload, UploadDownloadLink, upload list)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import AwareDatetime, Field

from postline.shared.base import Model
from postline.uploads.domain import DIRECT_MAX_BYTES, PRESIGNED_MAX_BYTES, Upload, UploadStatus


class UploadCreate(Model):
    filename: str = Field(min_length=1, max_length=1024, description="Sanitised for downloads: path, controls, quotes.")
    content: str | None = Field(
        default=None,
        max_length=(DIRECT_MAX_BYTES + 2) // 3 * 4,
        description=f"The file itself, base64, up to {DIRECT_MAX_BYTES} bytes decoded. Omit it for a presigned upload.",
    )
    size_bytes: int | None = Field(
        default=None,
        ge=1,
        le=PRESIGNED_MAX_BYTES,
        description="Without `content`: the file's size, reserved against the quota; the POST may carry at most this.",
    )
    expires_at: AwareDatetime | None = Field(default=None, description="After it: 410, and the file is deleted.")


class UploadUpdate(Model):
    expires_at: AwareDatetime | None = Field(default=None, description="null: never expires.")
    filename: str | None = Field(default=None, min_length=1, max_length=1024)


class PresignedPost(Model):
    """A presigned S3 POST: a multipart/form-data POST of `fields`, then the file as field `file`."""

    method: Literal["POST"] = "POST"
    url: str
    fields: dict[str, str]
    max_bytes: int
    expires_at: datetime


class UploadOut(Model):
    id: str
    filename: str
    content_type: str = Field(description="Sniffed from the file's bytes, never taken from the client.")
    size_bytes: int
    url: str | None = Field(description="The hosted link on the account's branded tracking host; null while none.")
    download_count: int = Field(description="People's downloads through `url`; link scanners excluded.")
    expires_at: datetime | None
    created_at: datetime
    status: UploadStatus = Field(description="pending until its file is found in S3, then ready.")


class UploadCreated(UploadOut):
    upload: PresignedPost | None = Field(description="Where to send the file; null when it came in the body.")


class UploadList(Model):
    items: list[UploadOut]
    used_bytes: int
    quota_bytes: int


class UploadDownloadLink(Model):
    url: str | None = Field(description="A short-lived S3 URL; fetching it counts no download. Null while pending.")
    expires_at: datetime | None = None


def upload_out(upload: Upload, url: str | None) -> UploadOut:
    return UploadOut(
        id=upload.id,
        filename=upload.filename,
        content_type=upload.content_type,
        size_bytes=upload.size_bytes,
        url=url if upload.status is UploadStatus.READY else None,
        download_count=upload.download_count,
        expires_at=upload.expires_at,
        created_at=upload.created_at,
        status=upload.status,
    )
