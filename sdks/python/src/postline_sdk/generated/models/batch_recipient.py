from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.batch_recipient_headers_type_0 import BatchRecipientHeadersType0
    from ..models.batch_recipient_metadata_type_0 import BatchRecipientMetadataType0
    from ..models.batch_recipient_vars import BatchRecipientVars


T = TypeVar("T", bound="BatchRecipient")


@_attrs_define
class BatchRecipient:
    """One personalized recipient of a batch: the address, its vars, and overrides of shared fields.

    Attributes:
        to (str): The recipient's address.
        vars_ (BatchRecipientVars | Unset):
        subject (None | str | Unset):
        html (None | str | Unset):
        text (None | str | Unset):
        tags (list[str] | None | Unset):
        headers (BatchRecipientHeadersType0 | None | Unset):
        metadata (BatchRecipientMetadataType0 | None | Unset):
        reply_to (None | str | Unset):
    """

    to: str
    vars_: BatchRecipientVars | Unset = UNSET
    subject: None | str | Unset = UNSET
    html: None | str | Unset = UNSET
    text: None | str | Unset = UNSET
    tags: list[str] | None | Unset = UNSET
    headers: BatchRecipientHeadersType0 | None | Unset = UNSET
    metadata: BatchRecipientMetadataType0 | None | Unset = UNSET
    reply_to: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.batch_recipient_headers_type_0 import BatchRecipientHeadersType0  # noqa: PLC0415
        from ..models.batch_recipient_metadata_type_0 import BatchRecipientMetadataType0  # noqa: PLC0415
        from ..models.batch_recipient_vars import BatchRecipientVars  # noqa: PLC0415

        to = self.to

        vars_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.vars_, Unset):
            vars_ = self.vars_.to_dict()

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        html: None | str | Unset
        if isinstance(self.html, Unset):
            html = UNSET
        else:
            html = self.html

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        tags: list[str] | None | Unset
        if isinstance(self.tags, Unset):
            tags = UNSET
        elif isinstance(self.tags, list):
            tags = self.tags

        else:
            tags = self.tags

        headers: dict[str, Any] | None | Unset
        if isinstance(self.headers, Unset):
            headers = UNSET
        elif isinstance(self.headers, BatchRecipientHeadersType0):
            headers = self.headers.to_dict()
        else:
            headers = self.headers

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, BatchRecipientMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        else:
            reply_to = self.reply_to

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "to": to,
            }
        )
        if vars_ is not UNSET:
            field_dict["vars"] = vars_
        if subject is not UNSET:
            field_dict["subject"] = subject
        if html is not UNSET:
            field_dict["html"] = html
        if text is not UNSET:
            field_dict["text"] = text
        if tags is not UNSET:
            field_dict["tags"] = tags
        if headers is not UNSET:
            field_dict["headers"] = headers
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_recipient_headers_type_0 import BatchRecipientHeadersType0  # noqa: PLC0415
        from ..models.batch_recipient_metadata_type_0 import BatchRecipientMetadataType0  # noqa: PLC0415
        from ..models.batch_recipient_vars import BatchRecipientVars  # noqa: PLC0415

        d = dict(src_dict)
        to = d.pop("to")

        _vars_ = d.pop("vars", UNSET)
        vars_: BatchRecipientVars | Unset
        if isinstance(_vars_, Unset):
            vars_ = UNSET
        else:
            vars_ = BatchRecipientVars.from_dict(_vars_)

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        def _parse_html(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        html = _parse_html(d.pop("html", UNSET))

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        def _parse_tags(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tags_type_0 = cast(list[str], data)

                return tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        tags = _parse_tags(d.pop("tags", UNSET))

        def _parse_headers(data: object) -> BatchRecipientHeadersType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                headers_type_0 = BatchRecipientHeadersType0.from_dict(data)

                return headers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BatchRecipientHeadersType0 | None | Unset, data)

        headers = _parse_headers(d.pop("headers", UNSET))

        def _parse_metadata(data: object) -> BatchRecipientMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = BatchRecipientMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BatchRecipientMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_reply_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        batch_recipient = cls(
            to=to,
            vars_=vars_,
            subject=subject,
            html=html,
            text=text,
            tags=tags,
            headers=headers,
            metadata=metadata,
            reply_to=reply_to,
        )

        return batch_recipient
