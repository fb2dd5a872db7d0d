"""The emulator's server keeps a client's connection open (devtools/moto_patches/keep_alive.py):
requests one after another on one connection answer as moto answers them, bodies of every framing
included, and a client that asks to close is closed."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from http.server import BaseHTTPRequestHandler
from types import SimpleNamespace

import pytest
from moto.moto_server import threaded_moto_server
from moto.moto_server.threaded_moto_server import ThreadedMotoServer

from devtools.moto_patches import keep_alive

_AUTH = "AWS4-HMAC-SHA256 Credential=testing/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0"


def _headers(target: str) -> dict[str, str]:
    return {"X-Amz-Target": f"DynamoDB_20120810.{target}", "Content-Type": "application/x-amz-json-1.0",
            "Authorization": _AUTH}  # fmt: skip


@pytest.fixture
def server() -> Iterator[str]:
    keep_alive.install()
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto.start()
    try:
        host, port = moto.get_host_and_port()
        yield f"{host}:{port}"
    finally:
        moto.stop()
        keep_alive.uninstall()


def _call(connection: http.client.HTTPConnection, target: str, body: dict[str, object], **extra: str) -> object:
    connection.request("POST", "/", body=json.dumps(body), headers={**_headers(target), **extra})
    response = connection.getresponse()
    assert response.status == 200, response.read()
    return json.loads(response.read())


def test_one_connection_serves_many_requests(server: str) -> None:
    connection = http.client.HTTPConnection(server, timeout=10)
    table = {
        "TableName": "keep-alive",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    _call(connection, "CreateTable", table)
    sock = connection.sock
    for index in range(20):
        item = {"pk": {"S": f"k{index}"}, "n": {"N": str(index)}}
        _call(connection, "PutItem", {"TableName": "keep-alive", "Item": item})
        assert connection.sock is sock  # the same connection: the server did not close it
    found = _call(connection, "GetItem", {"TableName": "keep-alive", "Key": {"pk": {"S": "k7"}}})
    assert found == {"Item": {"pk": {"S": "k7"}, "n": {"N": "7"}}}
    assert connection.sock is sock


def test_a_chunked_body_is_read_whole_and_the_next_request_follows(server: str) -> None:
    connection = http.client.HTTPConnection(server, timeout=10)
    body = json.dumps({}).encode()
    connection.request("POST", "/", body=iter([body[:1], body[1:]]), headers=_headers("ListTables"),
                       encode_chunked=True)  # fmt: skip
    response = connection.getresponse()
    assert "TableNames" in json.loads(response.read())  # moto's tables are process-wide: any names
    assert "TableNames" in _call(connection, "ListTables", {})  # type: ignore[operator]


def test_a_client_asking_to_close_is_closed(server: str) -> None:
    connection = http.client.HTTPConnection(server, timeout=10)
    connection.request("POST", "/", body="{}", headers={**_headers("ListTables"), "Connection": "close"})
    response = connection.getresponse()
    assert "TableNames" in json.loads(response.read())
    assert response.will_close


def test_a_malformed_body_is_refused_as_before(server: str) -> None:
    connection = http.client.HTTPConnection(server, timeout=10)
    connection.request("POST", "/", body="{not json", headers=_headers("PutItem"))
    response = connection.getresponse()
    response.read()
    assert response.status >= 400  # moto's own refusal of a malformed body, as before the patch


def test_the_date_header_is_http_servers_for_each_second(monkeypatch: pytest.MonkeyPatch) -> None:
    handler = keep_alive.KeepAliveRequestHandler.__new__(keep_alive.KeepAliveRequestHandler)
    moments = [1_795_000_000.0, 1_795_000_000.4, 1_795_000_000.999, 1_795_000_001.0, 1_795_000_061.5, 1_795_000_000.2]
    for moment in moments:  # within a second, across seconds, and back (a clock set back)
        monkeypatch.setattr(keep_alive, "time", SimpleNamespace(time=lambda moment=moment: moment))
        assert handler.date_time_string() == BaseHTTPRequestHandler.date_time_string(handler, moment)
    given = 1_700_000_000.5
    assert handler.date_time_string(given) == BaseHTTPRequestHandler.date_time_string(handler, given)


def test_an_answer_carries_the_date_of_its_second(server: str) -> None:
    connection = http.client.HTTPConnection(server, timeout=10)
    before = int(time.time())
    connection.request("POST", "/", body="{}", headers=_headers("ListTables"))
    response = connection.getresponse()
    response.read()
    after = int(time.time())
    dated = int(parsedate_to_datetime(response.headers["Date"]).timestamp())
    assert before <= dated <= after


def test_guard_refuses_a_changed_server() -> None:
    keep_alive.check_internals()
    original = vars(threaded_moto_server)["MotoRequestHandler"]
    vars(threaded_moto_server)["MotoRequestHandler"] = object
    try:
        with pytest.raises(RuntimeError, match="moto changed MotoRequestHandler"):
            keep_alive.check_internals()
    finally:
        vars(threaded_moto_server)["MotoRequestHandler"] = original
