"""The /_local/ control surface and the outbound mail sink, on the real template.yaml."""

from __future__ import annotations

import smtplib
from datetime import datetime
from email.message import EmailMessage
from typing import Any

import pytest

from devtools.local.runtime import Runtime
from postline import wiring
from tests.e2e.support import Api

pytestmark = pytest.mark.e2e


def test_advancing_the_clock_moves_the_services_clock(runtime_api: Api, runtime: Runtime) -> None:
    before = wiring.clock().now()

    response = runtime_api.post("/_local/clock/advance", json={"seconds": 3600})

    now = datetime.fromisoformat(response.json()["now"])
    assert wiring.clock() is runtime.clock
    assert now.timestamp() - before.timestamp() >= 3600


@pytest.mark.parametrize(
    "body",
    [{"seconds": -1}, {"seconds": "10"}, {"seconds": True}, {}, {"seconds": 1e300}, [10]],
    ids=["negative", "string", "boolean", "missing", "huge", "not-an-object"],
)
def test_advance_rejects_anything_but_a_non_negative_number(runtime_api: Api, body: Any) -> None:
    response = runtime_api.post("/_local/clock/advance", json=body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert response.json()["request_id"] == response.headers["X-Request-Id"]


def test_advance_rejects_a_body_that_is_not_json(runtime_api: Api) -> None:
    response = runtime_api.post("/_local/clock/advance", data="seconds=10")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_json"


def test_drain_answers_idle(runtime_api: Api) -> None:
    response = runtime_api.post("/_local/drain", json={"timeout": 5})

    assert response.status_code == 200
    assert response.json() == {"idle": True}


def test_an_unknown_control_route_is_not_found(runtime_api: Api) -> None:
    response = runtime_api.get("/_local/nothing-here")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_the_mailbox_holds_what_the_mail_sink_received(runtime_api: Api, runtime: Runtime) -> None:
    message = EmailMessage()
    message["From"] = "sender@example.com"
    message["To"] = "someone@example.net"
    message["Subject"] = "Hello from the sink test"
    message.set_content("Body text.\n")
    host, _, port = runtime.mail_sink.rpartition(":")

    with smtplib.SMTP(host, int(port), timeout=10) as smtp:
        smtp.send_message(message, to_addrs=["someone@example.net", "other@example.org"])
    items = runtime_api.get("/_local/mailbox").json()["items"]

    mine = [item for item in items if item["headers"].get("Subject") == "Hello from the sink test"]
    assert len(mine) == 1
    assert mine[0]["mail_from"] == "sender@example.com"
    assert mine[0]["rcpt_tos"] == ["someone@example.net", "other@example.org"]
    assert mine[0]["headers"]["To"] == "someone@example.net"
    assert "Body text." in mine[0]["raw"]

    assert runtime_api.delete("/_local/mailbox").status_code == 204
    assert runtime_api.get("/_local/mailbox").json() == {"items": []}
