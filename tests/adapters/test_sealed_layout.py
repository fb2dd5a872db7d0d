"""The sealed content's layout (sending/vault.py): compressed, then sealed, in Binary attributes; and
the base64 layout of messages stored before, which every reader still opens and erasure destroys."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from typing import Any

import pytest

from bench.receipt import receipt
from postline.auth.service import RouteRule
from postline.config import ContentBucket, ContentKey, Counters, Events, Messages
from postline.data_removals.holdings import MessagesHolding
from postline.delivery.outcomes import Outcome, OutcomeKind
from postline.delivery.parcel import Parcel
from postline.delivery.service import Dispatcher
from postline.keys.access import Access, Environment
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import Content
from postline.sending.models import MessageAccepted, SendRequest
from postline.sending.store import body_key
from postline.sending.vault import FORMAT_PLAIN, FORMAT_ZLIB, INLINE_LIMIT, LAYOUT, pack, unpack
from postline.shared.sealing import seal_bytes
from postline.tracking.domain import LinkMaker
from postline.verification.service import Verifier
from postline.wiring import auth, client, content_checks, sending, settings
from postline.wiring import clock as wired_clock
from postline.wiring import domains as domains_root
from postline.wiring import operator as operator_root
from postline.wiring import suppressions as suppressions_root
from tests.adapters.conftest import SENDER_DOMAIN
from tests.aws_stack import InProcessStack
from tests.fakes.shared import RecordingMeter
from tests.fakes.usage import UnlimitedQuotas
from tests.fakes.verification import StaticRoutes


class Handed:
    """A transport that delivers every parcel, keeping what it was handed."""

    def __init__(self) -> None:
        self.parcels: list[Parcel] = []

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            self.parcels.append(parcel)
            yield Outcome(OutcomeKind.DELIVERED, smtp_response="250 ok")


def _send(account_id: str, to: str, **body: Any) -> str:
    operator = operator_root.operator_service()
    key = operator.create_key(account_id, name="t", env=Environment.LIVE)
    principal = auth.authenticator().admit([f"Bearer {key.key}"], "127.0.0.1", RouteRule(Access.SEND, False)).principal
    assert principal is not None
    request = SendRequest.model_validate({"from": f"a@{SENDER_DOMAIN}", "to": [to], "subject": "s", **body})
    accepted = sending.send_service().send(principal, request)
    assert isinstance(accepted, MessageAccepted)
    return accepted.id


def _deliver(message_id: str, account_id: str) -> list[Parcel]:
    transport = Handed()
    dispatcher = Dispatcher(
        messages=sending.message_store(),
        vault=sending.vault(),
        queue=sending.dispatch_queue(),
        domains=domains_root.sending_domains(),
        suppressions=suppressions_root.suppressions(),
        transport_for=lambda message: transport,
        verifier=Verifier(StaticRoutes()),
        links=LinkMaker("https://track.example", b"secret"),
        retention_days=lambda account_id: 30,
        quotas=UnlimitedQuotas(),
        clock=wired_clock(),
        meter=RecordingMeter(),
        worker_id="w1",
    )
    job = DispatchJob(message_id=message_id, account_id=account_id, attempt=1, enqueued_at=wired_clock().now())
    dispatcher.dispatch(job)
    return transport.parcels


def _sealed_attribute(stack: InProcessStack, message_id: str) -> dict[str, Any]:
    item = stack.client("dynamodb").get_item(
        TableName=settings(Messages).table, Key=body_key(message_id), ConsistentRead=True
    )["Item"]
    sealed: dict[str, Any] = item["sealed"]["M"]
    return sealed


def _old_layout(stack: InProcessStack, message_id: str, content: Content) -> dict[str, Any]:
    """The record as the vault sealed it before LAYOUT 2 (base64 strings of the bare JSON), as raw
    attributes; its ciphertext in S3 when above INLINE_LIMIT, as then."""
    generated = client("kms").generate_data_key(KeyId=settings(ContentKey).key_id, KeySpec="AES_256")
    aad, dek = message_id.encode(), os.urandom(32)
    body = seal_bytes(dek, content.model_dump_json(exclude_defaults=True).encode(), aad)
    record = {
        "kek": {"S": base64.b64encode(generated["CiphertextBlob"]).decode()},
        "dek": {"S": base64.b64encode(seal_bytes(generated["Plaintext"], dek, aad)).decode()},
    }
    if len(body) <= INLINE_LIMIT:
        record["body"] = {"S": base64.b64encode(body).decode()}
    else:
        record["s3"] = {"S": f"content/{message_id}"}
        stack.client("s3").put_object(Bucket=settings(ContentBucket).bucket, Key=f"content/{message_id}", Body=body)
    return record


def _store_old_layout(stack: InProcessStack, message_id: str, content: Content) -> None:
    stack.client("dynamodb").update_item(
        TableName=settings(Messages).table,
        Key=body_key(message_id),
        UpdateExpression="SET sealed = :sealed",
        ExpressionAttributeValues={":sealed": {"M": _old_layout(stack, message_id, content)}},
    )


def _opened(message_id: str) -> Content:
    """The content as the message content route reads it (its body item, then the vault)."""
    return sending.vault().open(message_id, content_checks.copy_store().sealed_body(message_id) or {})


def test_content_is_compressed_then_sealed_into_binary_attributes(stack: InProcessStack, account_id: str) -> None:
    html, text = receipt(7)
    message_id = _send(account_id, "r@example.com", html=html, text=text)
    sealed = _sealed_attribute(stack, message_id)
    assert sealed["v"] == {"N": str(LAYOUT)}
    assert all("B" in sealed[name] for name in ("kek", "dek", "body"))  # bytes, not base64 text
    plain = len(Content(html=html, text=text).model_dump_json(exclude_defaults=True))
    assert len(sealed["body"]["B"]) < plain / 3  # a receipt shrinks 3-6x
    assert _opened(message_id) == Content(html=html, text=text)
    (parcel,) = _deliver(message_id, account_id)
    assert b"Thanks for your order" in parcel.mime


def test_content_that_compression_would_not_shrink_is_sealed_as_it_is() -> None:
    short, noise = b'{"text":"hi"}', os.urandom(3000)  # random bytes: nothing to squeeze
    assert pack(short) == bytes((FORMAT_PLAIN,)) + short
    assert pack(noise)[0] == FORMAT_PLAIN and len(pack(noise)) == len(noise) + 1
    repeated = b'{"html":"' + b"<p>Thank you for your order.</p>" * 40 + b'"}'
    assert pack(repeated)[0] == FORMAT_ZLIB and len(pack(repeated)) < len(repeated) / 5
    assert [unpack(pack(data)) for data in (short, noise, repeated)] == [short, noise, repeated]


def test_a_message_sealed_in_the_base64_layout_is_still_delivered_and_read(
    stack: InProcessStack, account_id: str
) -> None:
    content = Content(text="Sealed before the binary layout", html="<p>Sealed before</p>")
    message_id = _send(account_id, "old@example.com", text="replaced below")
    _store_old_layout(stack, message_id, content)
    assert "v" not in _sealed_attribute(stack, message_id) and "S" in _sealed_attribute(stack, message_id)["body"]
    assert _opened(message_id) == content
    (parcel,) = _deliver(message_id, account_id)
    assert b"Sealed before the binary layout" in parcel.mime


def test_a_large_message_in_either_layout_opens_from_s3(stack: InProcessStack, account_id: str) -> None:
    noise = base64.b64encode(os.urandom(INLINE_LIMIT * 2)).decode()  # compressed, still above the limit
    new_id = _send(account_id, "big@example.com", text=noise)
    assert "s3" in _sealed_attribute(stack, new_id) and "body" not in _sealed_attribute(stack, new_id)
    assert _opened(new_id).text == noise
    old_id = _send(account_id, "big@example.com", text="replaced below")
    _store_old_layout(stack, old_id, Content(text=noise))
    assert _opened(old_id).text == noise


def test_erasure_destroys_the_content_in_either_layout(stack: InProcessStack, account_id: str) -> None:
    address = "erase.me@example.com"
    html, text = receipt(11)
    compressed = _send(account_id, address, html=html, text=text)
    large = _send(account_id, address, text=base64.b64encode(os.urandom(INLINE_LIMIT * 2)).decode())
    old = _send(account_id, address, text="replaced below")
    old_large = _send(account_id, address, text="replaced below")
    _store_old_layout(stack, old, Content(text=f"Dear {address}"))
    _store_old_layout(stack, old_large, Content(text=base64.b64encode(os.urandom(INLINE_LIMIT * 2)).decode()))
    ids = [compressed, large, old, old_large]
    assert all(_opened(message_id).text for message_id in ids)
    s3, bucket = stack.client("s3"), settings(ContentBucket).bucket
    holding = MessagesHolding(
        stack.client("dynamodb"),
        s3,
        events=settings(Events).table,
        messages=settings(Messages).table,
        counters=settings(Counters).table,
        content_bucket=bucket,
    )
    holding.apply(account_id, address, "hash", {"messages": ids})
    for message_id in ids:
        with pytest.raises(LookupError, match="erased"):
            _opened(message_id)
        assert set(_sealed_attribute(stack, message_id)) == {"kek", "erased"}  # no data key, no ciphertext
    left = s3.list_objects_v2(Bucket=bucket, Prefix="content/").get("Contents", [])
    assert not {f"content/{large}", f"content/{old_large}"} & {obj["Key"] for obj in left}
