"""What a send request may contain (POST /v3/messages and its limits): pure validation."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from pydantic import ValidationError

from postline.sending.domain import (
    MAX_ATTACHMENT_BYTES,
    MAX_CUSTOM_HEADERS,
    MAX_METADATA_KEYS,
    MAX_RECIPIENTS,
    MAX_TAGS,
    Attachment,
    AttachmentTooLarge,
    RecipientLimitExceeded,
)
from postline.sending.models import SendRequest


def send(**fields: Any) -> SendRequest:
    payload: dict[str, Any] = {"from": "sender@acme.example", "to": ["rcpt@example.com"], "subject": "Hi", "text": "t"}
    return SendRequest.model_validate({**payload, **fields})


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def addresses(count: int, prefix: str = "r") -> list[str]:
    return [f"{prefix}{n}@example.com" for n in range(count)]


# --- from ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("sender@acme.example", "sender@acme.example"),
        ("  sender@acme.example  ", "sender@acme.example"),
        ("Sender@ACME.Example", "Sender@acme.example"),  # the local part keeps its case, the domain does not
        ("Acme Billing <billing@Acme.Example>", "Acme Billing <billing@acme.example>"),
        ('"Doe, John" <john@acme.example>', '"Doe, John" <john@acme.example>'),
    ],
)
def test_from_is_normalized_and_keeps_its_display_name(given: str, stored: str) -> None:
    assert send(**{"from": given}).from_ == stored


@pytest.mark.parametrize("bad", ["", "   ", "not-an-address", "Acme <>", "Acme <billing@>", "@acme.example"])
def test_from_must_be_an_address(bad: str) -> None:
    with pytest.raises(ValidationError):
        send(**{"from": bad})


def test_from_is_required() -> None:
    with pytest.raises(ValidationError, match="from"):
        SendRequest.model_validate({"to": ["rcpt@example.com"], "subject": "Hi", "text": "t"})


def test_from_may_be_given_by_field_name() -> None:
    request = SendRequest.model_validate(
        {"from_": "a@acme.example", "to": ["b@example.com"], "subject": "s", "text": "t"}
    )
    assert request.from_ == "a@acme.example"


def test_a_non_ascii_display_name_stays_readable() -> None:
    assert send(**{"from": "José <jose@Acme.Example>"}).from_ == "José <jose@acme.example>"


@pytest.mark.parametrize("two", ["a@acme.example, evil@other.example", "Acme <a@acme.example> <evil@other.example>"])
def test_from_with_two_addresses_is_refused(two: str) -> None:
    with pytest.raises(ValidationError):
        send(**{"from": two})


# --- recipients ---------------------------------------------------------------------------------


def test_recipients_are_normalized_in_every_field() -> None:
    request = send(to=[" Ann@Example.COM "], cc=["Bob@Example.Com"], bcc=["Cy@EXAMPLE.com"])
    assert (request.to, request.cc, request.bcc) == (["Ann@example.com"], ["Bob@example.com"], ["Cy@example.com"])


def test_to_is_required_and_not_empty() -> None:
    with pytest.raises(ValidationError):
        send(to=[])
    with pytest.raises(ValidationError):
        SendRequest.model_validate({"from": "a@acme.example", "subject": "s", "text": "t"})


@pytest.mark.parametrize("field", ["to", "cc", "bcc"])
@pytest.mark.parametrize("bad", ["not-an-address", "Ann <ann@example.com>", "", "a" * 65 + "@example.com"])
def test_recipients_are_bare_valid_addresses(field: str, bad: str) -> None:
    with pytest.raises(ValidationError):
        send(**{field: [bad]})


def test_a_thousand_addresses_in_to_are_allowed() -> None:
    send(to=addresses(MAX_RECIPIENTS)).check_recipient_limits()


@pytest.mark.parametrize("field", ["to", "cc", "bcc"])
def test_more_than_a_thousand_in_one_field_is_recipient_limit_exceeded(field: str) -> None:
    request = send(**{field: addresses(MAX_RECIPIENTS + 1)})
    with pytest.raises(RecipientLimitExceeded, match=field) as raised:
        request.check_recipient_limits()
    assert (raised.value.code, raised.value.status) == ("recipient_limit_exceeded", 400)


def test_a_thousand_recipients_across_fields_are_allowed() -> None:
    send(to=addresses(400, "t"), cc=addresses(300, "c"), bcc=addresses(300, "b")).check_recipient_limits()


def test_more_than_a_thousand_across_fields_is_recipient_limit_exceeded() -> None:
    request = send(to=addresses(400, "t"), cc=addresses(300, "c"), bcc=addresses(301, "b"))
    with pytest.raises(RecipientLimitExceeded, match="1001 recipients") as raised:
        request.check_recipient_limits()
    assert raised.value.code == "recipient_limit_exceeded"


def test_too_many_recipients_is_not_a_validation_error() -> None:
    send(to=addresses(MAX_RECIPIENTS + 1))  # the model itself accepts it; the limit answers its own code


# --- headers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["X-Campaign", "x-campaign", "X-A", "X-Order-Id-2", "X-" + "a" * 74])
def test_custom_x_headers_are_accepted(name: str) -> None:
    assert send(headers={name: "value"}).headers == {name: "value"}


@pytest.mark.parametrize(
    "name", ["Subject", "From", "Bcc", "Reply-To", "List-Unsubscribe", "Received", "XCampaign", "X-", "Y-Thing"]
)
def test_headers_other_than_x_are_refused(name: str) -> None:
    with pytest.raises(ValidationError, match="only custom X-"):
        send(headers={name: "value"})


@pytest.mark.parametrize("name", ["X-Has Space", "X-Under_Score", "X-Colon:", "X-Ünicode", "X-" + "a" * 75])
def test_x_header_names_are_letters_digits_and_dashes(name: str) -> None:
    with pytest.raises(ValidationError, match="only custom X-"):
        send(headers={name: "value"})


@pytest.mark.parametrize(
    "name", ["X-Postline-Message-Id", "x-postline-message-id", "X-Webhook-Attempt", "X-SVC-Signature"]
)
def test_headers_the_service_sets_are_reserved(name: str) -> None:
    with pytest.raises(ValidationError, match="set by the service"):
        send(headers={name: "forged"})


@pytest.mark.parametrize("value", ["a\r\nBcc: victim@example.com", "line\nbreak", "carriage\rreturn"])
def test_header_values_are_one_line(value: str) -> None:
    with pytest.raises(ValidationError, match="one line"):
        send(headers={"X-Note": value})


def test_header_values_are_at_most_998_characters() -> None:
    send(headers={"X-Note": "v" * 998})
    with pytest.raises(ValidationError, match="998"):
        send(headers={"X-Note": "v" * 999})


def test_at_most_fifty_custom_headers() -> None:
    send(headers={f"X-H{n}": "v" for n in range(MAX_CUSTOM_HEADERS)})
    with pytest.raises(ValidationError, match="at most 50 custom headers"):
        send(headers={f"X-H{n}": "v" for n in range(MAX_CUSTOM_HEADERS + 1)})


def test_a_header_name_with_a_trailing_newline_is_refused() -> None:
    with pytest.raises(ValidationError):
        send(headers={"X-Foo\n": "v"})


# --- metadata -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["order", "order.id", "order_id", "order-id", "A1", "k" * 64])
def test_metadata_keys_of_the_allowed_alphabet_are_accepted(key: str) -> None:
    assert send(metadata={key: "v"}).metadata == {key: "v"}


@pytest.mark.parametrize("key", ["", "has space", "k" * 65, "ключ", "a/b", "a:b", "a$b"])
def test_metadata_keys_outside_the_pattern_are_refused(key: str) -> None:
    with pytest.raises(ValidationError, match="metadata key"):
        send(metadata={key: "v"})


def test_metadata_values_are_at_most_200_characters() -> None:
    send(metadata={"k": "v" * 200})
    with pytest.raises(ValidationError, match="at most 200"):
        send(metadata={"k": "v" * 201})


def test_at_most_twenty_metadata_keys() -> None:
    send(metadata={f"k{n}": "v" for n in range(MAX_METADATA_KEYS)})
    with pytest.raises(ValidationError, match="at most 20 metadata keys"):
        send(metadata={f"k{n}": "v" for n in range(MAX_METADATA_KEYS + 1)})


def test_metadata_values_are_strings() -> None:
    with pytest.raises(ValidationError):
        send(metadata={"k": {"nested": 1}})


def test_a_metadata_key_with_a_trailing_newline_is_refused() -> None:
    with pytest.raises(ValidationError):
        send(metadata={"order\n": "v"})


# --- tags ---------------------------------------------------------------------------------------


def test_tags_are_stripped() -> None:
    assert send(tags=["  welcome ", "onboarding"]).tags == ["welcome", "onboarding"]


def test_at_most_ten_tags() -> None:
    send(tags=[f"t{n}" for n in range(MAX_TAGS)])
    with pytest.raises(ValidationError):
        send(tags=[f"t{n}" for n in range(MAX_TAGS + 1)])


@pytest.mark.parametrize("tag", ["", "   ", "t" * 129])
def test_a_tag_is_one_to_128_characters(tag: str) -> None:
    with pytest.raises(ValidationError):
        send(tags=[tag])


# --- attachments --------------------------------------------------------------------------------


def test_an_attachment_is_base64_content_with_a_name_and_a_type() -> None:
    request = send(
        attachments=[{"filename": "invoice.pdf", "content": b64(b"%PDF-1.7"), "content_type": "application/pdf"}]
    )
    (attachment,) = request.attachments
    assert (attachment.filename, attachment.content_type, attachment.size) == ("invoice.pdf", "application/pdf", 8)


def test_the_content_type_defaults_to_octet_stream() -> None:
    assert Attachment(filename="a.bin", content=b64(b"x")).content_type == "application/octet-stream"


@pytest.mark.parametrize("content", ["not base64!", "YWJj\nZGVm", "YWJjZA", "=="])
def test_attachment_content_must_be_base64(content: str) -> None:
    with pytest.raises(ValidationError, match="base64"):
        Attachment(filename="a.txt", content=content)


@pytest.mark.parametrize("filename", ["", "dir/a.txt", "dir\\a.txt", "a\r\n.txt", "a" * 256])
def test_attachment_filenames_are_plain_names(filename: str) -> None:
    with pytest.raises(ValidationError):
        Attachment(filename=filename, content=b64(b"x"))


@pytest.mark.parametrize("content_type", ["pdf", "text/html; charset=utf-8", "text/html\r\nX: y", "/"])
def test_attachment_content_types_are_type_slash_subtype(content_type: str) -> None:
    with pytest.raises(ValidationError):
        Attachment(filename="a", content=b64(b"x"), content_type=content_type)


def test_attachments_refuse_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        Attachment.model_validate({"filename": "a", "content": b64(b"x"), "disposition": "inline"})


def test_attachments_up_to_seven_mib_decoded_pass() -> None:
    half = MAX_ATTACHMENT_BYTES // 2
    request = send(
        attachments=[
            {"filename": "a.bin", "content": b64(b"\0" * half)},
            {"filename": "b.bin", "content": b64(b"\0" * (MAX_ATTACHMENT_BYTES - half))},
        ]
    )
    request.check_attachments()


def test_attachments_over_seven_mib_decoded_are_attachment_too_large() -> None:
    half = MAX_ATTACHMENT_BYTES // 2
    request = send(
        attachments=[
            {"filename": "a.bin", "content": b64(b"\0" * half)},
            {"filename": "b.bin", "content": b64(b"\0" * (MAX_ATTACHMENT_BYTES - half + 1))},
        ]
    )
    with pytest.raises(AttachmentTooLarge) as raised:
        request.check_attachments()
    assert (raised.value.code, raised.value.status) == ("attachment_too_large", 400)
    assert str(MAX_ATTACHMENT_BYTES + 1) in raised.value.message


def test_the_limit_is_seven_mib() -> None:
    assert MAX_ATTACHMENT_BYTES == 7 * 1024 * 1024


# --- body, subject and template -----------------------------------------------------------------


@pytest.mark.parametrize("body", [{"html": "<p>h</p>"}, {"text": "t"}, {"html": "<p>h</p>", "text": "t"}])
def test_html_or_text_is_a_body(body: dict[str, str]) -> None:
    request = SendRequest.model_validate({"from": "a@acme.example", "to": ["b@example.com"], "subject": "s", **body})
    assert (request.html, request.text) == (body.get("html"), body.get("text"))


def test_a_body_is_required_without_a_template() -> None:
    with pytest.raises(ValidationError, match="give html, text or a template_id"):
        SendRequest.model_validate({"from": "a@acme.example", "to": ["b@example.com"], "subject": "s"})


@pytest.mark.parametrize("subject", [None, ""])
def test_a_subject_is_required_without_a_template(subject: str | None) -> None:
    with pytest.raises(ValidationError, match="subject is required"):
        send(subject=subject)


def test_a_template_needs_neither_body_nor_subject() -> None:
    request = SendRequest.model_validate(
        {"from": "a@acme.example", "to": ["b@example.com"], "template_id": "tpl_1", "vars": {"name": "Ann"}}
    )
    assert (request.template_id, request.subject, request.html, request.text) == ("tpl_1", None, None, None)
    assert request.vars == {"name": "Ann"}


def test_the_subject_is_at_most_998_characters() -> None:
    send(subject="s" * 998)
    with pytest.raises(ValidationError):
        send(subject="s" * 999)


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError):
        send(priority="high")


# --- send_at and the rest -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "when",
    [
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05+02:00",
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=-7))),
    ],
)
def test_send_at_with_a_time_zone_is_accepted(when: str | datetime) -> None:
    request = send(send_at=when)
    assert request.send_at is not None
    assert request.send_at.utcoffset() is not None


@pytest.mark.parametrize(
    "when",
    [
        "2030-01-02T10:00:00+05:00",
        "2030-01-02T00:00:00-05:00",
        "2030-01-02T05:00:00Z",
        "2030-01-02T05:00:00+00:00",
        datetime(2030, 1, 2, 10, 0, tzinfo=timezone(timedelta(hours=5))),
    ],
)
def test_send_at_is_kept_in_utc_whatever_offset_it_came_with(when: str | datetime) -> None:
    request = send(send_at=when)
    assert request.send_at == datetime(2030, 1, 2, 5, 0, tzinfo=UTC)
    assert request.send_at is not None and request.send_at.utcoffset() == timedelta(0)
    assert request.model_dump(mode="json")["send_at"] == "2030-01-02T05:00:00Z"  # as created_at is shown


@pytest.mark.parametrize("when", ["2026-01-02T03:04:05", datetime(2026, 1, 2, 3, 4, 5)])
def test_send_at_without_a_time_zone_is_refused(when: str | datetime) -> None:
    with pytest.raises(ValidationError, match="send_at needs a time zone"):
        send(send_at=when)


def test_tracking_is_on_by_default() -> None:
    request = send()
    assert (request.track_opens, request.track_clicks) == (True, True)


@pytest.mark.parametrize("url", ["not a url", "ftp://hooks.example/x"])
def test_webhook_url_must_be_http(url: str) -> None:
    with pytest.raises(ValidationError):
        send(webhook_url=url)


def test_reply_to_is_a_mailbox() -> None:
    assert send(reply_to="Help <Help@Acme.Example>").reply_to == "Help <Help@acme.example>"
    with pytest.raises(ValidationError):
        send(reply_to="nobody")
