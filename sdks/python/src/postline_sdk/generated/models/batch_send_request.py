from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.attachment import Attachment
    from ..models.batch_recipient import BatchRecipient
    from ..models.batch_send_request_headers import BatchSendRequestHeaders
    from ..models.batch_send_request_metadata import BatchSendRequestMetadata


T = TypeVar("T", bound="BatchSendRequest")


@_attrs_define
class BatchSendRequest:
    """POST /v3/messages.batch: the shared fields of a single send, plus up to 5,000 recipients.

    Attributes:
        from_ (str): Sender: 'a@b.example' or 'Name <a@b.example>'.
        recipients (list[BatchRecipient]):
        subject (None | str | Unset):
        html (None | str | Unset):
        text (None | str | Unset):
        template_id (None | str | Unset):
        tags (list[str] | Unset):
        headers (BatchSendRequestHeaders | Unset): Custom X-* headers, stamped on the email.
        metadata (BatchSendRequestMetadata | Unset): Your keys and values, echoed on every event.
        send_at (datetime.datetime | None | Unset): Schedule up to 30 days ahead; with a time zone, kept in UTC.
        webhook_url (None | str | Unset): Every event of the message is also POSTed here.
        reply_to (None | str | Unset):
        attachments (list[Attachment] | Unset):
        track_opens (bool | Unset):  Default: True.
        track_clicks (bool | Unset):  Default: True.
        ip_pool (None | str | Unset): The IP pool to send through (its id or name; GET /v3/ip-pools); default: the
            account's default pool, else the shared platform pool.
    """

    from_: str
    recipients: list[BatchRecipient]
    subject: None | str | Unset = UNSET
    html: None | str | Unset = UNSET
    text: None | str | Unset = UNSET
    template_id: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    headers: BatchSendRequestHeaders | Unset = UNSET
    metadata: BatchSendRequestMetadata | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET
    webhook_url: None | str | Unset = UNSET
    reply_to: None | str | Unset = UNSET
    attachments: list[Attachment] | Unset = UNSET
    track_opens: bool | Unset = True
    track_clicks: bool | Unset = True
    ip_pool: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.attachment import Attachment  # noqa: PLC0415
        from ..models.batch_recipient import BatchRecipient  # noqa: PLC0415
        from ..models.batch_send_request_headers import BatchSendRequestHeaders  # noqa: PLC0415
        from ..models.batch_send_request_metadata import BatchSendRequestMetadata  # noqa: PLC0415

        from_ = self.from_

        recipients = []
        for recipients_item_data in self.recipients:
            recipients_item = recipients_item_data.to_dict()
            recipients.append(recipients_item)

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

        template_id: None | str | Unset
        if isinstance(self.template_id, Unset):
            template_id = UNSET
        else:
            template_id = self.template_id

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        send_at: None | str | Unset
        if isinstance(self.send_at, Unset):
            send_at = UNSET
        elif isinstance(self.send_at, datetime.datetime):
            send_at = self.send_at.isoformat()
        else:
            send_at = self.send_at

        webhook_url: None | str | Unset
        if isinstance(self.webhook_url, Unset):
            webhook_url = UNSET
        else:
            webhook_url = self.webhook_url

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        else:
            reply_to = self.reply_to

        attachments: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attachments, Unset):
            attachments = []
            for attachments_item_data in self.attachments:
                attachments_item = attachments_item_data.to_dict()
                attachments.append(attachments_item)

        track_opens = self.track_opens

        track_clicks = self.track_clicks

        ip_pool: None | str | Unset
        if isinstance(self.ip_pool, Unset):
            ip_pool = UNSET
        else:
            ip_pool = self.ip_pool

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "recipients": recipients,
            }
        )
        if subject is not UNSET:
            field_dict["subject"] = subject
        if html is not UNSET:
            field_dict["html"] = html
        if text is not UNSET:
            field_dict["text"] = text
        if template_id is not UNSET:
            field_dict["template_id"] = template_id
        if tags is not UNSET:
            field_dict["tags"] = tags
        if headers is not UNSET:
            field_dict["headers"] = headers
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if send_at is not UNSET:
            field_dict["send_at"] = send_at
        if webhook_url is not UNSET:
            field_dict["webhook_url"] = webhook_url
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to
        if attachments is not UNSET:
            field_dict["attachments"] = attachments
        if track_opens is not UNSET:
            field_dict["track_opens"] = track_opens
        if track_clicks is not UNSET:
            field_dict["track_clicks"] = track_clicks
        if ip_pool is not UNSET:
            field_dict["ip_pool"] = ip_pool

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attachment import Attachment  # noqa: PLC0415
        from ..models.batch_recipient import BatchRecipient  # noqa: PLC0415
        from ..models.batch_send_request_headers import BatchSendRequestHeaders  # noqa: PLC0415
        from ..models.batch_send_request_metadata import BatchSendRequestMetadata  # noqa: PLC0415

        d = dict(src_dict)
        from_ = d.pop("from")

        recipients = []
        _recipients = d.pop("recipients")
        for recipients_item_data in _recipients:
            recipients_item = BatchRecipient.from_dict(recipients_item_data)

            recipients.append(recipients_item)

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

        def _parse_template_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        template_id = _parse_template_id(d.pop("template_id", UNSET))

        tags = cast(list[str], d.pop("tags", UNSET))

        _headers = d.pop("headers", UNSET)
        headers: BatchSendRequestHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = BatchSendRequestHeaders.from_dict(_headers)

        _metadata = d.pop("metadata", UNSET)
        metadata: BatchSendRequestMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = BatchSendRequestMetadata.from_dict(_metadata)

        def _parse_send_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                send_at_type_0 = datetime.datetime.fromisoformat(data)

                return send_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        send_at = _parse_send_at(d.pop("send_at", UNSET))

        def _parse_webhook_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_url = _parse_webhook_url(d.pop("webhook_url", UNSET))

        def _parse_reply_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        _attachments = d.pop("attachments", UNSET)
        attachments: list[Attachment] | Unset = UNSET
        if _attachments is not UNSET:
            attachments = []
            for attachments_item_data in _attachments:
                attachments_item = Attachment.from_dict(attachments_item_data)

                attachments.append(attachments_item)

        track_opens = d.pop("track_opens", UNSET)

        track_clicks = d.pop("track_clicks", UNSET)

        def _parse_ip_pool(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ip_pool = _parse_ip_pool(d.pop("ip_pool", UNSET))

        batch_send_request = cls(
            from_=from_,
            recipients=recipients,
            subject=subject,
            html=html,
            text=text,
            template_id=template_id,
            tags=tags,
            headers=headers,
            metadata=metadata,
            send_at=send_at,
            webhook_url=webhook_url,
            reply_to=reply_to,
            attachments=attachments,
            track_opens=track_opens,
            track_clicks=track_clicks,
            ip_pool=ip_pool,
        )

        return batch_send_request
