"""devtools/local/console.py: the console's files under /console and the local sign-in, over HTTP
through the runtime's gateway; the tokens it issues are console JWTs the API accepts."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import jwt
import pytest
import requests
from werkzeug.test import Client
from werkzeug.wrappers import Request, Response

from devtools.local.console import LocalConsole
from devtools.local.runtime import Runtime
from tests.e2e.support import Api

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment


def _client(console: LocalConsole) -> Client:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        response: Iterable[bytes] = console(Request(environ))(environ, start_response)
        return response

    return Client(app, Response)


def _built(tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>console</title>")
    (dist / "assets" / "app-1234.js").write_text("console.log(1)")
    (tmp_path / "secret.txt").write_text("outside")
    return dist


def test_the_built_files_are_served_and_every_other_path_is_the_page(tmp_path: Path) -> None:
    client = _client(LocalConsole(_built(tmp_path)))
    page = client.get("/console/")
    assert page.status_code == 200 and page.mimetype == "text/html" and b"<title>console" in page.data
    assert page.headers["Cache-Control"] == "no-cache"
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    asset = client.get("/console/assets/app-1234.js")
    assert asset.data == b"console.log(1)" and "immutable" in asset.headers["Cache-Control"]
    assert client.get("/console/activity").data == page.data  # the single page answers its own routes
    assert b"outside" not in client.get("/console/../secret.txt").data
    assert client.get("/console").status_code == 308


def test_an_unbuilt_console_says_how_to_build_it(tmp_path: Path) -> None:
    response = _client(LocalConsole(tmp_path / "dist")).get("/console/")
    assert response.status_code == 503 and b"make run" in response.data


def test_a_sign_in_link_works_once_and_its_token_carries_the_environment(tmp_path: Path) -> None:
    console = LocalConsole(_built(tmp_path))
    console.configure("acct_1", audience="postline-console", issuer="")
    client = _client(console)
    code = console.sign_in_link("http://127.0.0.1:3000").split("#signin=")[1]

    first = client.post("/console/session", json={"code": code})
    assert first.status_code == 200, first.data
    token = first.json["token"]  # type: ignore[index]
    claims = jwt.decode(token, options={"verify_signature": False})
    assert (claims["account_id"], claims["env"], claims["aud"]) == ("acct_1", "test", "postline-console")
    assert client.post("/console/session", json={"code": code}).status_code == 401
    assert client.post("/console/session", json={"code": "guessed"}).status_code == 401

    live = client.post("/console/session/switch", json={"env": "live"}, headers={"Authorization": f"Bearer {token}"})
    assert live.status_code == 200 and live.json["env"] == "live"  # type: ignore[index]
    assert jwt.decode(live.json["token"], options={"verify_signature": False})["env"] == "live"  # type: ignore[index]
    bad_env = client.post("/console/session/switch", json={"env": "prod"}, headers={"Authorization": f"Bearer {token}"})
    assert bad_env.status_code == 400
    assert client.post("/console/session/switch", json={"env": "live"}).status_code == 401
    other = LocalConsole(tmp_path)  # another run's key signs nothing this one accepts
    other.configure("acct_1", audience="postline-console", issuer="")
    forged = other.mint("live")["token"]
    forged_auth = {"Authorization": f"Bearer {forged}"}
    assert client.post("/console/session/switch", json={"env": "live"}, headers=forged_auth).status_code == 401


def test_the_key_set_keeps_the_signers_a_caller_configured(tmp_path: Path) -> None:
    console = LocalConsole(tmp_path)
    configured = '{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "abc", "kid": "theirs"}]}'
    assert [key["kid"] for key in json.loads(console.key_set(configured))["keys"]] == ["theirs", console.jwk()["kid"]]
    assert [key["kid"] for key in json.loads(console.key_set(""))["keys"]] == [console.jwk()["kid"]]


@pytest.mark.e2e
def test_the_runtimes_console_signs_in_to_the_development_account_in_either_mode(runtime: Runtime) -> None:
    link = runtime.console_link()
    assert link and link.startswith(f"{runtime.base_url}/console/#signin=")
    session = requests.post(f"{runtime.base_url}/console/session", json={"code": link.split("#signin=")[1]}, timeout=10)
    assert session.status_code == 200, session.text
    test_token = session.json()["token"]
    whoami = Api(runtime.base_url, test_token).get("/v3/whoami").json()
    assert whoami["account"]["id"] == runtime.dev["account_id"]
    assert whoami["api_key"] == {"id": "", "scope": "full_access", "environment": "test"}
    switched = requests.post(
        f"{runtime.base_url}/console/session/switch",
        json={"env": "live"},
        headers={"Authorization": f"Bearer {test_token}"},
        timeout=10,
    )
    assert Api(runtime.base_url, switched.json()["token"]).get("/v3/whoami").json()["api_key"]["environment"] == "live"
