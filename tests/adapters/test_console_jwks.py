"""Console JWTs verified against a key set fetched over HTTP (a Cognito pool's
<issuer>/.well-known/jwks.json), for either of the pool's app clients, through a key rotation."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from postline.auth.console_jwt import JwksTokenVerifier


class KeySet:
    """A JWKS endpoint on 127.0.0.1 (what Cognito serves at <issuer>/.well-known/jwks.json)."""

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {}
        self.fetches = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.fetches += 1
                body = json.dumps(
                    {
                        "keys": [
                            json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(k.public_key()))
                            | {"kid": kid, "alg": "RS256", "use": "sig"}
                            for kid, k in owner.keys.items()
                        ]
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/pool/.well-known/jwks.json"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def add(self, kid: str) -> Any:
        self.keys[kid] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return self.keys[kid]


@pytest.fixture
def key_set() -> Iterator[KeySet]:
    served = KeySet()
    yield served
    served.server.shutdown()


def token(key: Any, kid: str, **claims: Any) -> str:
    now = int(time.time())
    body = {
        "sub": "user-1",
        "iss": "https://issuer.example",
        "aud": "client-test",
        "exp": now + 300,
        "iat": now,
        **claims,
    }
    return jwt.encode(body, key, algorithm="RS256", headers={"kid": kid})


def test_a_token_is_verified_against_the_fetched_set_for_either_app_client(key_set: KeySet) -> None:
    first = key_set.add("k1")
    verifier = JwksTokenVerifier(
        "", audience="client-test,client-live", issuer="https://issuer.example", jwks_url=key_set.url
    )
    assert verifier.verify(token(first, "k1", account_id="acc_1"))["account_id"] == "acc_1"  # type: ignore[index]
    assert verifier.verify(token(first, "k1", aud="client-live")) is not None
    assert verifier.verify(token(first, "k1", aud="another-app")) is None
    assert verifier.verify(token(first, "k1", iss="https://elsewhere.example")) is None
    assert key_set.fetches == 1  # cached


def test_a_rotated_key_is_fetched_and_an_unknown_one_refused(key_set: KeySet) -> None:
    first = key_set.add("k1")
    verifier = JwksTokenVerifier("", audience="client-test", jwks_url=key_set.url, refetch_cooldown=0)
    assert verifier.verify(token(first, "k1")) is not None
    second = key_set.add("k2")  # the pool rotates: the new key signs from now on
    assert verifier.verify(token(second, "k2")) is not None
    assert key_set.fetches == 2
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert verifier.verify(token(stranger, "k3")) is None
    assert verifier.verify(token(stranger, "k1")) is None  # a known kid, the wrong key


def test_unknown_kids_cannot_make_every_request_a_fetch(key_set: KeySet) -> None:
    first = key_set.add("k1")
    verifier = JwksTokenVerifier("", audience="client-test", jwks_url=key_set.url)
    assert verifier.verify(token(first, "k1")) is not None
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    for n in range(5):
        assert verifier.verify(token(stranger, f"random-{n}")) is None
    assert key_set.fetches == 1  # within the cooldown, nothing is fetched again


def test_an_unreachable_key_set_refuses_the_token_without_raising() -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    verifier = JwksTokenVerifier("", audience="client-test", jwks_url="http://127.0.0.1:9/none.json")
    assert verifier.verify(token(key, "k1")) is None
