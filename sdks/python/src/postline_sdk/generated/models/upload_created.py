from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.upload_status import UploadStatus
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.presigned_post import PresignedPost


T = TypeVar("T", bound="UploadCreated")


@_attrs_define
class UploadCreated:
    """
    Attributes:
        id (str):
        filename (str):
        content_type (str): Sniffed from the file's bytes, never taken from the client.
        size_bytes (int):
        url (None | str): The hosted link on the account's branded tracking host; null while none.
        download_count (int): People's downloads through `url`; link scanners excluded.
        expires_at (datetime.datetime | None):
        created_at (datetime.datetime):
        status (UploadStatus):
        upload (None | PresignedPost): Where to send the file; null when it came in the body.
    """

    id: str
    filename: str
    content_type: str
    size_bytes: int
    url: None | str
    download_count: int
    expires_at: datetime.datetime | None
    created_at: datetime.datetime
    status: UploadStatus
    upload: None | PresignedPost
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.presigned_post import PresignedPost  # noqa: PLC0415

        id = self.id

        filename = self.filename

        content_type = self.content_type

        size_bytes = self.size_bytes

        url: None | str
        url = self.url

        download_count = self.download_count

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        created_at = self.created_at.isoformat()

        status = self.status.value

        upload: dict[str, Any] | None
        if isinstance(self.upload, PresignedPost):
            upload = self.upload.to_dict()
        else:
            upload = self.upload

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "filename": filename,
                "content_type": content_type,
                "size_bytes": size_bytes,
                "url": url,
                "download_count": download_count,
                "expires_at": expires_at,
                "created_at": created_at,
                "status": status,
                "upload": upload,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.presigned_post import PresignedPost  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        filename = d.pop("filename")

        content_type = d.pop("content_type")

        size_bytes = d.pop("size_bytes")

        def _parse_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        url = _parse_url(d.pop("url"))

        download_count = d.pop("download_count")

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        status = UploadStatus(d.pop("status"))

        def _parse_upload(data: object) -> None | PresignedPost:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                upload_type_0 = PresignedPost.from_dict(data)

                return upload_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PresignedPost, data)

        upload = _parse_upload(d.pop("upload"))

        upload_created = cls(
            id=id,
            filename=filename,
            content_type=content_type,
            size_bytes=size_bytes,
            url=url,
            download_count=download_count,
            expires_at=expires_at,
            created_at=created_at,
            status=status,
            upload=upload,
        )

        upload_created.additional_properties = d
        return upload_created

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
