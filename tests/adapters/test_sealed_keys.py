"""The sealed platform-key store (shared/sealed_keys.py) against moto: the webhook signing keys and the
TLS-RPT reports' DKIM keys written in the shape the two stores wrote before they shared it are read
and used as they are (no migration); a group without a key is not cached; groups do not mix."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

from nacl.signing import SigningKey as NaclSigningKey
from nacl.signing import VerifyKey

from postline.domains.dkim_keys import RsaDkimKeys
from postline.shared.sealed_keys import SealedPlatformKeys
from postline.signing_keys.store import DynamoSigningKeys
from postline.tlsrpt.domain import ReportKey
from postline.tlsrpt.keys import DynamoReportKeys
from tests.aws_stack import InProcessStack

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def _put(stack: InProcessStack, sk: str, item: dict[str, str]) -> None:
    attrs = {name: {"S": value} for name, value in {"pk": "PLATFORM", "sk": sk, **item}.items()}
    stack.client("dynamodb").put_item(TableName=stack.env["RESOURCES_TABLE"], Item=attrs)


def _sealed(stack: InProcessStack, plaintext: bytes, context: dict[str, str]) -> str:
    blob = stack.client("kms").encrypt(
        KeyId=stack.env["CONTENT_KEY_ID"], Plaintext=plaintext, EncryptionContext=context
    )
    return base64.b64encode(blob["CiphertextBlob"]).decode()


def _args(stack: InProcessStack) -> tuple[Any, str, Any, str]:
    return stack.client("dynamodb"), stack.env["RESOURCES_TABLE"], stack.client("kms"), stack.env["CONTENT_KEY_ID"]


def test_a_signing_key_stored_before_the_shared_store_signs_and_is_replaced(stack: InProcessStack) -> None:
    seed = NaclSigningKey.generate()
    kid = "ed25519-20261121-legacy01"
    _put(stack, "SIGNKEY", {"kid": kid})  # the pointer and the key as signing_keys/store.py wrote them
    _put(stack, f"SIGNKEY#{kid}", {
        "kid": kid,
        "public_key": base64.b64encode(bytes(seed.verify_key)).decode(),
        "private_key": _sealed(stack, bytes(seed), {"purpose": "webhook-signing", "kid": kid}),
        "created_at": T0.isoformat(),
    })  # fmt: skip
    store = DynamoSigningKeys(*_args(stack))
    (stored,) = store.keys()
    assert (stored.kid, stored.public_key, stored.replaced_at) == (kid, bytes(seed.verify_key), None)
    VerifyKey(stored.public_key).verify(b"payload", store.sign_with(kid, b"payload"))

    assert store.mint("ed25519-20261121-next0001", T0, replacing=stored) is True
    by_kid = {key.kid: key for key in store.keys()}  # noqa: SIM118 (a store, not a dict)
    assert by_kid[kid].replaced_at == T0 and by_kid["ed25519-20261121-next0001"].replaced_at is None
    assert store.mint("ed25519-20261121-late0001", T0, replacing=stored) is False  # the pointer moved on
    pointer = stack.client("dynamodb").get_item(
        TableName=stack.env["RESOURCES_TABLE"], Key={"pk": {"S": "PLATFORM"}, "sk": {"S": "SIGNKEY"}}
    )["Item"]
    assert pointer["kid"] == {"S": "ed25519-20261121-next0001"}  # the attribute name is unchanged


def test_a_report_key_stored_before_the_shared_store_is_read_staged_and_promoted(stack: InProcessStack) -> None:
    private_pem, public = RsaDkimKeys().new_key()
    domain = "legacy.reporter.test"
    _put(stack, f"TLSRPT_DKIM#{domain}", {"active": "tlsrpt20261121-old"})
    _put(stack, f"TLSRPT_DKIM#{domain}#tlsrpt20261121-old", {
        "domain": domain,
        "selector": "tlsrpt20261121-old",
        "public_key": public,
        "private_key": _sealed(stack, private_pem.encode(),
                               {"purpose": "tlsrpt-dkim", "domain": domain, "selector": "tlsrpt20261121-old"}),
        "created_at": T0.isoformat(),
    })  # fmt: skip
    store = DynamoReportKeys(*_args(stack))
    active, staged = store.keys(domain)
    assert staged is None and active is not None
    assert (active.selector, active.private_key, active.public_key) == ("tlsrpt20261121-old", private_pem, public)
    assert store.keys("reporter.test") == (None, None)  # a domain whose name prefixes it: its own group

    pem, der = RsaDkimKeys().new_key()
    new = ReportKey(domain=domain, selector="tlsrpt20261122-new", private_key=pem, public_key=der, created_at=T0)
    assert store.add(new, staged=True, replacing=None) is True
    assert store.add(new, staged=True, replacing=None) is False  # a stored key is never overwritten
    assert store.keys(domain) == (active, new)
    assert store.promote(domain, new.selector) is True
    assert store.promote(domain, new.selector) is False  # not the next key any more
    assert store.keys(domain) == (new, None)


def test_a_group_without_a_key_is_read_again_and_one_with_keys_is_cached(stack: InProcessStack) -> None:
    store = SealedPlatformKeys(*_args(stack), purpose="test-kind")
    assert store.group("TESTKEY").keys == {}
    other = SealedPlatformKeys(*_args(stack), purpose="test-kind")  # another process adds the first key
    sealed = other.seal(b"secret", {"id": "k1"})
    assert other.add("TESTKEY", "k1", {"private_key": sealed}, role="active", replacing=None) is True
    first = store.group("TESTKEY")
    assert first.pointer == {"active": "k1"} and store.open(first.keys["k1"]["private_key"], {"id": "k1"}) == b"secret"
    assert other.add("TESTKEY", "k2", {"private_key": sealed}, role="active", replacing="k1") is True
    assert store.group("TESTKEY") == first  # cached for a minute in this process
    store.forget("TESTKEY")
    assert store.group("TESTKEY").holder("active") == {"pk": "PLATFORM", "sk": "TESTKEY#k2", "private_key": sealed}
