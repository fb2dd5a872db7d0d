"""The Standard Webhooks headers, checked by the official verifiers (Python and JavaScript) and PyNaCl."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey
from standardwebhooks.webhooks import WebhookVerificationError

from postline.shared.ids import RandomIds
from postline.webhook_delivery.domain import standard_headers, standard_signed_content, standard_webhooks_key
from postline.webhooks.domain import SECRET_PREFIX, SECRET_RANDOM_LENGTH
from tests.peers.standard_webhooks import verify_javascript, verify_python, verify_v1a

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
BODY = '{"event":"delivered","recipient":"zoë@example.com"}'
PLATFORM = SigningKey.generate()


def headers_for(secrets: list[str], delivery_id: str = "dlv_1") -> dict[str, str]:
    timestamp = int(NOW.timestamp())
    signature = PLATFORM.sign(standard_signed_content(delivery_id, timestamp, BODY)).signature
    return standard_headers(delivery_id, timestamp, BODY, secrets, signature)


def a_secret() -> str:
    return SECRET_PREFIX + RandomIds().secret(SECRET_RANDOM_LENGTH)


def test_the_spec_test_vector() -> None:
    """standardwebhooks.com's published example: the same key, content and signature."""
    key = standard_webhooks_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    assert key is not None and len(key) == 24


def test_both_official_verifiers_accept_a_generated_secrets_signature() -> None:
    secret = a_secret()
    headers = headers_for([secret])
    assert verify_python(secret, BODY.encode(), headers, NOW) == {"event": "delivered", "recipient": "zoë@example.com"}
    assert verify_javascript(secret, BODY.encode(), headers, NOW)["recipient"] == "zoë@example.com"


def test_during_a_rotation_either_secret_verifies() -> None:
    new, old = a_secret(), a_secret()
    headers = headers_for([new, old])
    assert headers["webhook-signature"].count("v1,") == 2
    for secret in (new, old):
        verify_python(secret, BODY.encode(), headers, NOW)
        verify_javascript(secret, BODY.encode(), headers, NOW)
    with pytest.raises(WebhookVerificationError):
        verify_python(a_secret(), BODY.encode(), headers, NOW)
    with pytest.raises(AssertionError, match="No matching signature"):
        verify_javascript(a_secret(), BODY.encode(), headers, NOW)


def test_a_tampered_body_or_id_fails() -> None:
    secret = a_secret()
    headers = headers_for([secret])
    with pytest.raises(WebhookVerificationError):
        verify_python(secret, BODY.replace("delivered", "bounced").encode(), headers, NOW)
    with pytest.raises(WebhookVerificationError):
        verify_python(secret, BODY.encode(), {**headers, "webhook-id": "dlv_2"}, NOW)


def test_v1a_is_ed25519_by_the_platform_key_on_every_delivery() -> None:
    headers = headers_for([])
    assert headers["webhook-signature"].startswith("v1a,") and " " not in headers["webhook-signature"]
    verify_v1a(BODY.encode(), headers, bytes(PLATFORM.verify_key))
    with pytest.raises(BadSignatureError):
        verify_v1a(BODY.encode(), headers, bytes(SigningKey.generate().verify_key))


@pytest.mark.parametrize("secret", ["whsec_" + "a-b_" * 8, "whsec_" + "abc"])
def test_a_secret_the_libraries_cannot_decode_gets_no_v1(secret: str) -> None:
    """A customer's own url-safe secret is not base64: the official verifiers could not use a v1."""
    assert standard_webhooks_key(secret) is None
    assert headers_for([secret])["webhook-signature"].startswith("v1a,")
