"""The content check's adapters against moto (kept copies sealed by the real vault, beside their message)
and spamd's client against a port where nothing listens (the check's `unavailable`)."""

from __future__ import annotations

import base64
import os
import socket
import uuid
from datetime import UTC, datetime

from postline.content_checks.domain import Draft, PartName, Status, check_draft
from postline.content_checks.spamd import SpamdScorer
from postline.sending.domain import Content, Message
from postline.sending.store import _message_item
from postline.sending.vault import INLINE_LIMIT
from postline.shared.dynamo import to_value
from postline.wiring import content_checks, sending
from tests.aws_stack import InProcessStack

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def _stored_message(stack: InProcessStack) -> Message:
    message = Message.model_validate(
        {
            "id": f"msg_{uuid.uuid4().hex[:12]}",
            "account_id": "acct_1",
            "key_id": "key_1",
            "test": True,
            "from": "hi@shop.example",
            "to": ["ann@example.com"],
            "subject": "Hello",
            "created_at": NOW,
            "expires_at": 2_000_000_000,
        }
    )
    (sealed,) = sending.vault().seal([(message.id, Content(text="Hi"))])
    sending.message_store().create([message], [sealed], [])
    return message


def test_copies_are_sealed_beside_their_message_and_read_back(stack: InProcessStack) -> None:
    message = _stored_message(stack)
    copies = content_checks.kept_copies()
    # A copy over the inline limit, compressed, goes to S3 (random: zeros would compress below it).
    big = base64.b64encode(os.urandom(INLINE_LIMIT * 2)).decode()
    copies.keep(message.id, "ann@example.com", b"Subject: one\r\n\r\nHi ann\r\n", message.expires_at)
    copies.keep(message.id, "bob@example.com", f"Subject: two\r\n\r\n{big}\r\n".encode(), message.expires_at)
    copies.flush()
    found = content_checks.kept_copies().read(message.id)
    assert found["ann@example.com"] == b"Subject: one\r\n\r\nHi ann\r\n"
    assert found["bob@example.com"].startswith(b"Subject: two") and len(found["bob@example.com"]) > INLINE_LIMIT
    items = stack.client("dynamodb").query(
        TableName=stack.env["MESSAGES_TABLE"],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"MSG#{message.id}"}},
    )["Items"]
    copied = [item for item in items if item["sk"]["S"].startswith("COPY#")]
    assert len(copied) == 2 and all(item["expires_at"]["N"] == "2000000000" for item in copied)
    assert all(b"Hi ann" not in str(item).encode() for item in copied)  # ciphertext only
    # The message item is untouched: it still reads as the message, with its sealed body.
    assert sending.message_store().get(message.id) == message
    assert content_checks.copy_store().sealed_body(message.id) is not None


def test_a_live_messages_sealed_body_is_read_from_its_own_item_or_from_an_older_message_item(
    stack: InProcessStack,
) -> None:
    message = _stored_message(stack)
    bodies, vault = content_checks.copy_store(), sending.vault()
    assert vault.open(message.id, bodies.sealed_body(message.id) or {}) == Content(text="Hi")
    # A message stored before its body had an item of its own: `sealed` in the message item.
    older = message.model_copy(update={"id": f"msg_{uuid.uuid4().hex[:12]}"})
    (sealed,) = vault.seal([(older.id, Content(text="Older"))])
    item = {**_message_item(older), "sealed": to_value(sealed)}
    stack.client("dynamodb").put_item(TableName=stack.env["MESSAGES_TABLE"], Item=item)
    assert vault.open(older.id, bodies.sealed_body(older.id) or {}) == Content(text="Older")
    assert bodies.sealed_body("msg_never_stored") is None


def test_spamd_that_does_not_answer_is_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again when the block ends: nothing listens there
    assert SpamdScorer(f"127.0.0.1:{port}", timeout=2.0).score(b"Subject: x\r\n\r\nHi\r\n") is None
    assert SpamdScorer("").score(b"Subject: x\r\n\r\nHi\r\n") is None
    draft = Draft(mime=b"Subject: x\r\n\r\nHi\r\n", from_domain="shop.example", source_html=None, source_text="Hi",
                  tracking_host=None)  # fmt: skip
    part = check_draft(draft, spam=None, domain=None, complaint_rate=None).parts[0]
    assert (part.name, part.status) == (PartName.SPAMASSASSIN, Status.UNAVAILABLE)


def test_erasing_an_address_deletes_its_messages_kept_copies_and_their_ciphertext(stack: InProcessStack) -> None:
    from postline.data_removals.holdings import MessagesHolding

    message = _stored_message(stack)
    copies = content_checks.kept_copies()
    big = os.urandom(INLINE_LIMIT * 2)  # sealed into S3 (random: compressed, still above the limit)
    copies.keep(message.id, "ann@example.com", b"To: ann@example.com\r\n\r\n" + big, message.expires_at)
    copies.flush()
    (sealed,) = content_checks.copy_store().copies(message.id).values()
    assert "s3" in sealed
    holding = MessagesHolding(
        stack.client("dynamodb"),
        stack.client("s3"),
        events=stack.env["EVENTS_TABLE"],
        messages=stack.env["MESSAGES_TABLE"],
        counters=stack.env["COUNTERS_TABLE"],
        content_bucket=stack.env["CONTENT_BUCKET"],
    )
    holding.apply("acct_1", "ann@example.com", "hash", {"messages": [message.id]})
    assert content_checks.copy_store().copies(message.id) == {}
    listed = stack.client("s3").list_objects_v2(Bucket=stack.env["CONTENT_BUCKET"], Prefix=sealed["s3"])
    assert listed.get("KeyCount", 0) == 0
