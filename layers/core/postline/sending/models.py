"""POST /v3/messages and /v3/messages.batch, GET /v3/messages/{id} and the scheduled sends: requests and replies."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field, HttpUrl, field_validator, model_validator

from postline.content_checks.domain import ContentCheck
from postline.sending.domain import (
    MAX_ATTACHMENT_BYTES,
    MAX_RECIPIENTS,
    MAX_SCHEDULE_DAYS,
    MAX_TAGS,
    Attachment,
    AttachmentTooLarge,
    Headers,
    Message,
    MessageStatus,
    Metadata,
    RecipientLimitExceeded,
    Recipients,
    Tag,
)
from postline.shared.addresses import Mailbox
from postline.shared.base import Model
from postline.shared.errors import ValidationFailed
from postline.shared.message_fields import Subject
from postline.shared.times import utc


class SendFields(Model):
    """What a single send and a batch share (POST /v3/messages and POST /v3/messages.batch)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: Mailbox = Field(alias="from", description="Sender: 'a@b.example' or 'Name <a@b.example>'.")
    subject: Subject | None = None
    html: str | None = None
    text: str | None = None
    template_id: str | None = Field(default=None, max_length=64)
    tags: Annotated[list[Tag], Field(max_length=MAX_TAGS)] = Field(default_factory=list)
    headers: Headers = Field(default_factory=dict, description="Custom X-* headers, stamped on the email.")
    metadata: Metadata = Field(default_factory=dict, description="Your keys and values, echoed on every event.")
    send_at: datetime | None = Field(
        default=None, description=f"Schedule up to {MAX_SCHEDULE_DAYS} days ahead; with a time zone, kept in UTC."
    )
    webhook_url: HttpUrl | None = Field(default=None, description="Every event of the message is also POSTed here.")
    reply_to: Mailbox | None = None
    attachments: list[Attachment] = Field(default_factory=list, max_length=20)
    track_opens: bool = True
    track_clicks: bool = True
    ip_pool: str | None = Field(
        default=None,
        max_length=64,
        description="The IP pool to send through (its id or name; GET /v3/ip-pools); default: the account's "
        "default pool, else the shared platform pool.",
    )

    @field_validator("send_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        """Refused without a time zone (not taken as UTC, as UtcDatetime would); kept in UTC, so it is
        stored, shown and ordered as the instant it names, whatever offset it came with."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("send_at needs a time zone, e.g. 2026-01-02T03:04:05Z")
        return utc(value)

    def check_attachments(self) -> None:
        total = sum(attachment.size for attachment in self.attachments)
        if total > MAX_ATTACHMENT_BYTES:
            raise AttachmentTooLarge(
                f"Attachments total {total} bytes; the limit is {MAX_ATTACHMENT_BYTES} bytes (decoded)."
            )


class SendRequest(SendFields):
    """POST /v3/messages."""

    to: Recipients = Field(min_length=1)
    cc: Recipients = Field(default_factory=list)
    bcc: Recipients = Field(default_factory=list)
    vars: dict[str, Any] = Field(default_factory=dict, description="Template variables.")

    @model_validator(mode="after")
    def _has_body(self) -> SendRequest:
        if self.template_id is None and self.html is None and self.text is None:
            raise ValueError("give html, text or a template_id")
        if self.template_id is None and not self.subject:
            raise ValueError("subject is required unless a template supplies it")
        return self

    def check_recipient_limits(self) -> None:
        for name, field in (("to", self.to), ("cc", self.cc), ("bcc", self.bcc)):
            if len(field) > MAX_RECIPIENTS:
                raise RecipientLimitExceeded(f"{name} has {len(field)} addresses; at most {MAX_RECIPIENTS}.")
        total = len(self.to) + len(self.cc) + len(self.bcc)
        if total > MAX_RECIPIENTS:
            raise RecipientLimitExceeded(f"{total} recipients across to, cc and bcc; at most {MAX_RECIPIENTS}.")


class MimeSendRequest(Model):
    """A message submitted over SMTP (postline/smtp): the envelope's recipients, what its headers say
    (From, Subject, X-Svc-*, custom X-*), and the message to deliver as submitted. Validated with
    the same types as POST /v3/messages; the recipient limits are the same too."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: Mailbox = Field(alias="from")
    recipients: Recipients = Field(min_length=1)
    subject: Subject = ""
    tags: Annotated[list[Tag], Field(max_length=MAX_TAGS)] = Field(default_factory=list)
    headers: Headers = Field(default_factory=dict)
    metadata: Metadata = Field(default_factory=dict)
    webhook_url: HttpUrl | None = None
    template_id: str | None = Field(default=None, max_length=64)  # X-Svc-Template: a list send's only
    ip_pool: str | None = Field(default=None, max_length=64)  # X-Svc-Ip-Pool
    mime: bytes = Field(repr=False)

    def check_recipient_limits(self) -> None:
        if len(self.recipients) > MAX_RECIPIENTS:
            raise RecipientLimitExceeded(f"{len(self.recipients)} recipients; at most {MAX_RECIPIENTS}.")


class MessageView(Model):
    """A message as GET /v3/messages/{id} returns it."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    status: MessageStatus
    from_: str = Field(alias="from")
    to: list[str]
    subject: str
    tags: list[str]
    headers: dict[str, str]
    created_at: datetime
    send_at: datetime | None
    delivered_at: datetime | None
    opened_at: datetime | None
    clicked_at: datetime | None
    content_check: ContentCheck | None = Field(
        default=None, description="a test-mode message's content check, once delivered (GET .../content has it too)"
    )

    @classmethod
    def of(cls, message: Message) -> MessageView:
        return cls.model_validate(message.model_dump(by_alias=True))


class MessageAccepted(Model):
    """202 of POST /v3/messages: id, status (always queued), created_at, and the echoes."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    status: MessageStatus = MessageStatus.QUEUED
    created_at: datetime
    from_: str = Field(alias="from")
    to: list[str]
    tags: list[str]
    headers: dict[str, str]


class ScheduledMessage(Model):
    model_config = ConfigDict(populate_by_name=True)

    id: str
    from_: str = Field(alias="from")
    to: list[str]
    subject: str
    tags: list[str]
    send_at: datetime
    created_at: datetime


class ScheduledMessageCancellation(Model):
    id: str
    status: str = "cancelled"
    message: str


MAX_BATCH_RECIPIENTS = 5_000


class BatchRecipient(Model):
    """One personalized recipient of a batch: the address, its vars, and overrides of shared fields."""

    model_config = ConfigDict(extra="forbid")

    to: str = Field(description="The recipient's address.")
    vars: dict[str, Any] = Field(default_factory=dict)
    subject: str | None = None
    html: str | None = None
    text: str | None = None
    tags: list[str] | None = None
    headers: dict[str, str] | None = None
    metadata: dict[str, str] | None = None
    reply_to: str | None = None


class BatchSendRequest(SendFields):
    """POST /v3/messages.batch: the shared fields of a single send, plus up to 5,000 recipients."""

    # Not capped here: more than 5,000 answers recipient_limit_exceeded, not validation_error.
    recipients: Annotated[list[BatchRecipient], Field(min_length=1)]

    def check_limits(self) -> None:
        if len(self.recipients) > MAX_BATCH_RECIPIENTS:
            raise RecipientLimitExceeded(
                f"{len(self.recipients)} recipients; a batch takes at most {MAX_BATCH_RECIPIENTS}."
            )
        if self.attachments:
            raise ValidationFailed("attachments: batches do not take attachments; send them one by one.")


class RejectedRecipient(Model):
    index: int
    to: str
    reason: str


class BatchSendResult(Model):
    batch_id: str
    accepted: int
    rejected: int
    message_ids: list[str]
    rejected_recipients: list[RejectedRecipient] | None = None
