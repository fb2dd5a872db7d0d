"""Webhook auth modes end to end on the embedded runtime, against real servers on 127.0.0.1.

- oauth2: a real token endpoint (tests/peers/token_server.py) and a receiver that accepts only
  tokens it issued and has not revoked: caching, the one retry with a fresh token, a failed token
  fetch falling into the retry schedule, expiry on the runtime's clock.
- mtls: a TLS receiver that requires a client certificate from the session's test CA; the runtime
  trusts the receiver's server certificate only through WebhookCaBundle (tests/conftest.py).
- hmac rotation: both secrets verify for 24 hours (Stripe's SDK checks the header), then only the new.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import stripe

from devtools.local.runtime import Runtime
from tests.certs import TestCa, client_pair, server_context
from tests.e2e.support import Api, make_account
from tests.e2e.webhook_support import SLACK_SECONDS, create_endpoint, send, update_endpoint
from tests.peers.token_server import TokenServer
from tests.peers.webhook_receiver import Receiver

pytestmark = pytest.mark.e2e

CLIENT_ID = "postline-hooks"
CLIENT_SECRET = "client-secret-0123456789"
SCOPE = "hooks:write"
AUDIENCE = "https://hooks.example.test"
CLIENT_CN = "hooks-client.postline.test"


@pytest.fixture
def api(runtime: Runtime) -> Api:
    return Api(runtime.base_url, make_account().test_key)


# -- oauth2 -----------------------------------------------------------------------------------------


@pytest.fixture
def tokens() -> Iterator[TokenServer]:
    with TokenServer(CLIENT_ID, CLIENT_SECRET, scope=SCOPE, audience=AUDIENCE, expires_in=600) as server:
        yield server


@pytest.fixture
def guarded(tokens: TokenServer) -> Iterator[Receiver]:
    """Answers 401 unless the request carries a token the token server issued and still honours."""
    with Receiver(authorize=lambda request: tokens.accepts(request.headers.get("Authorization"))) as receiver:
        yield receiver


def oauth2(tokens: TokenServer) -> dict[str, Any]:
    fields = {"token_url": tokens.url, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}
    return {"oauth2": {**fields, "scope": SCOPE, "audience": AUDIENCE}}


def deliver_one(runtime: Runtime, api: Api) -> None:
    send(api)
    assert runtime.drain(30) == []


def bearer(token: str) -> str:
    return f"Bearer {token}"


def test_oauth2_fetches_one_token_and_reuses_it_across_deliveries(
    runtime: Runtime, api: Api, tokens: TokenServer, guarded: Receiver
) -> None:
    create_endpoint(api, guarded.url, oauth2(tokens), events=["queued", "sent", "delivered"])
    deliver_one(runtime, api)
    for _ in range(2):  # first attempts made together (one stream batch) share the fetch too
        send(api)
    assert runtime.drain(30) == []
    received = guarded.wait_for(9)
    assert len(received) == 9
    (token,) = tokens.issued
    assert {r.headers["Authorization"] for r in received} == {bearer(token)}
    (request,) = tokens.requests
    assert (request.status, request.client_id) == (200, CLIENT_ID)  # HTTP Basic client authentication
    assert request.form == {"grant_type": "client_credentials", "scope": SCOPE, "audience": AUDIENCE}


def test_oauth2_a_401_gets_one_retry_with_a_fresh_token_in_the_same_attempt(
    runtime: Runtime, api: Api, tokens: TokenServer, guarded: Receiver
) -> None:
    create_endpoint(api, guarded.url, oauth2(tokens))
    deliver_one(runtime, api)
    (first_token,) = tokens.issued
    tokens.revoke(first_token)  # the receiver now answers 401 to the cached token

    deliver_one(runtime, api)
    _, refused, accepted = guarded.wait_for(3)
    assert len(tokens.requests) == 2
    assert refused.headers["Authorization"] == bearer(first_token)
    assert accepted.headers["Authorization"] == bearer(tokens.issued[1]) != bearer(first_token)
    assert refused.headers["X-Webhook-Attempt"] == accepted.headers["X-Webhook-Attempt"] == "1"
    assert refused.headers["X-Webhook-Delivery-Id"] == accepted.headers["X-Webhook-Delivery-Id"]

    runtime.advance(31)  # the delivery succeeded: no second attempt is scheduled
    assert runtime.drain(30) == []
    assert len(guarded.requests) == 3 and len(tokens.requests) == 2


def test_oauth2_a_failed_token_fetch_fails_the_attempt_into_the_schedule(
    runtime: Runtime, api: Api, tokens: TokenServer, guarded: Receiver
) -> None:
    create_endpoint(api, guarded.url, oauth2(tokens))
    tokens.failing = 500
    deliver_one(runtime, api)
    assert guarded.requests == []
    assert [r.status for r in tokens.requests] == [500]

    tokens.failing = None
    runtime.advance(30 - SLACK_SECONDS)
    assert runtime.drain(30) == []
    assert guarded.requests == [] and len(tokens.requests) == 1  # attempt 2 is due at +30 s
    runtime.advance(SLACK_SECONDS)
    assert runtime.drain(30) == []
    (received,) = guarded.wait_for(1)
    assert received.headers["X-Webhook-Attempt"] == "2"
    assert received.headers["Authorization"] == bearer(tokens.issued[0])
    assert [r.status for r in tokens.requests] == [500, 200]


def test_oauth2_a_token_is_used_until_it_expires_on_the_runtimes_clock(
    runtime: Runtime, api: Api, tokens: TokenServer, guarded: Receiver
) -> None:
    create_endpoint(api, guarded.url, oauth2(tokens))
    deliver_one(runtime, api)
    runtime.advance(tokens.expires_in - 60)  # still valid (the runtime renews 30 s before expiry)
    deliver_one(runtime, api)
    assert len(tokens.issued) == 1
    runtime.advance(60)  # expires_in has passed since the fetch
    deliver_one(runtime, api)
    first, second, third = guarded.wait_for(3)
    assert len(tokens.issued) == 2
    assert first.headers["Authorization"] == second.headers["Authorization"] == bearer(tokens.issued[0])
    assert third.headers["Authorization"] == bearer(tokens.issued[1])


# -- mtls -------------------------------------------------------------------------------------------


@pytest.fixture
def mtls_receiver(webhook_ca: TestCa) -> Iterator[Receiver]:
    """TLS with a server certificate from the test CA; requires a client certificate that CA issued."""
    cert, key = webhook_ca.issue("127.0.0.1", server=True)
    with Receiver(tls=server_context(cert, key, client_ca=webhook_ca.pem)) as receiver:
        yield receiver


def mtls(cert: str, key: str) -> dict[str, Any]:
    return {"mtls": {"cert_pem": cert, "key_pem": key}}


def test_mtls_presents_the_endpoints_client_certificate(
    runtime: Runtime, api: Api, webhook_ca: TestCa, mtls_receiver: Receiver
) -> None:
    created = create_endpoint(api, mtls_receiver.url, mtls(*webhook_ca.issue(CLIENT_CN)))
    assert created["auth"]["subject"] == f"CN={CLIENT_CN}"
    message_id = send(api)
    assert runtime.drain(30) == []
    (received,) = mtls_receiver.wait_for(1)
    assert received.client_subject == str(((("commonName", CLIENT_CN),),))
    assert json.loads(received.body)["message_id"] == message_id


@pytest.mark.parametrize(
    "stranger",
    [lambda: client_pair(), lambda: TestCa.create("Other CA").issue(CLIENT_CN)],
    ids=["self-signed", "other-ca"],
)
def test_mtls_a_client_certificate_the_receiver_does_not_trust_is_a_retryable_failure(
    runtime: Runtime, api: Api, webhook_ca: TestCa, mtls_receiver: Receiver, stranger: Any
) -> None:
    created = create_endpoint(api, mtls_receiver.url, mtls(*stranger()))
    send(api)
    assert runtime.drain(30) == []
    assert mtls_receiver.requests == []  # the handshake failed: no request reached the handler

    # Retryable: attempt 2 comes at +30 s, and with the certificate fixed it gets through.
    update_endpoint(api, created["id"], {"auth": mtls(*webhook_ca.issue(CLIENT_CN))})
    runtime.advance(30)
    assert runtime.drain(30) == []
    (received,) = mtls_receiver.wait_for(1)
    assert received.headers["X-Webhook-Attempt"] == "2"
    assert received.client_subject == str(((("commonName", CLIENT_CN),),))


def test_a_receiver_certificate_from_an_untrusted_ca_gets_nothing(runtime: Runtime, api: Api) -> None:
    cert, key = TestCa.create("Untrusted CA").issue("127.0.0.1", server=True)
    with Receiver(tls=server_context(cert, key)) as untrusted:
        create_endpoint(api, untrusted.url)
        send(api)
        assert runtime.drain(30) == []
        assert untrusted.requests == []


# -- hmac rotation ----------------------------------------------------------------------------------


def signatures(header: str) -> list[str]:
    return [part for part in header.split(",") if part.startswith("v1=")]


def verifies(body: bytes, header: str, secret: str) -> bool:
    try:
        return bool(stripe.WebhookSignature.verify_header(body.decode(), header, secret))
    except stripe.SignatureVerificationError:
        return False


def test_hmac_rotation_keeps_the_old_secret_valid_for_24_hours(runtime: Runtime, api: Api) -> None:
    with Receiver() as receiver:
        created = create_endpoint(api, receiver.url, {"hmac": {}})
        old = created["secret"]
        rotated = api.post(f"/v3/webhooks/{created['id']}/secret/rotate")
        assert rotated.status_code == 200, rotated.text
        new = rotated.json()["secret"]
        assert new != old

        deliver_one(runtime, api)
        runtime.advance(24 * 3600 - 60)
        deliver_one(runtime, api)
        runtime.advance(2 * 60)  # 24 h + 1 min after the rotation
        deliver_one(runtime, api)
        received = receiver.wait_for(3)
        assert len(received) == 3

    for request in received:
        assert request.headers["X-Svc-Key-Id"] == "whsec_" + new[-4:]
        assert verifies(request.body, request.headers["X-Svc-Signature"], new)
    for request in received[:2]:  # within the overlap: one v1 per secret, each verifies
        assert len(signatures(request.headers["X-Svc-Signature"])) == 2
        assert verifies(request.body, request.headers["X-Svc-Signature"], old)
    after = received[2].headers["X-Svc-Signature"]
    assert len(signatures(after)) == 1
    assert not verifies(received[2].body, after, old)
