"""POST /v3/messages on a warm instance that admitted its key before (auth/speculation.py): the send's
reads run beside the key's read on the remembered principal, and nothing is stored until the
admission, made in full on every request, confirms it. Over HTTP against the embedded runtime, whose
handlers share this process's instance memory: a key revoked, an account suspended, an allowlist
narrowed or a window spent after the key was remembered answers as it always did, with nothing
stored and the month's usage as it was.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from bench.recorder import Call, CallRecorder, request_calls
from postline.accounts.domain import AccountStatus
from postline.wiring import operator as operator_root
from tests.e2e.sending_support import (
    Sender,
    accepted,
    mail_for,
    message,
    parse,
    put_verified_domain,
    recipient,
    settle,
    verified_sender,
)
from tests.e2e.support import Api, assert_error, make_account, make_key

pytestmark = pytest.mark.e2e
WRITES = {"PutItem", "BatchWriteItem", "TransactWriteItems", "UpdateItem"}


def _used(api: Api) -> tuple[int, int]:
    """The month's and the day's live emails counted."""
    response = api.get("/v3/usage")
    assert response.status_code == 200, response.text
    body = response.json()
    return body["emails"]["used"], body["daily"]["used"]


def _recorded(call: Callable[[], Any]) -> tuple[Any, list[Call]]:
    """What `call` answered, and the calls its request made."""
    with CallRecorder() as recorder:
        answer = call()
        return answer, request_calls(recorder.since(0))


def _stored(runtime: Any, calls: list[Call]) -> list[Call]:
    """The request's writes to the messages and events tables (a message, its body, its events)."""
    tables = {runtime.env["MESSAGES_TABLE"], runtime.env["EVENTS_TABLE"]}
    return [
        call
        for call in calls
        if call.service == "dynamodb"
        and call.operation in WRITES
        and tables & {call.params.get("TableName"), *call.params.get("RequestItems", {})}
    ]


def _ran_beside_the_admission(calls: list[Call]) -> bool:
    """The send's reads began before its admission ended: the key's read (BatchGetItem of the key and
    its account) and the suppressions' read ran in workers of one side-by-side run."""
    batch_gets = [call for call in calls if call.name == "dynamodb.BatchGetItem"]
    runs = {call.thread.split(" > part")[1].rpartition("_")[0] for call in batch_gets if " > part" in call.thread}
    return len(batch_gets) == 2 and len(runs) == 1


def _warm(sender: Sender) -> None:
    """A send this instance admits: it remembers the key's principal."""
    accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient())))


def _key_id(api: Api) -> str:
    key_id: str = api.get("/v3/whoami").json()["api_key"]["id"]
    return key_id


def test_a_send_after_the_key_was_remembered_runs_beside_its_admission_and_is_delivered(runtime: Any) -> None:
    sender = verified_sender(runtime)
    _warm(sender)
    to = recipient("spec")

    response, calls = _recorded(lambda: sender.live.post("/v3/messages", json=message(sender.address, to)))

    sent = accepted(response)
    assert _ran_beside_the_admission(calls), [(c.thread, c.name) for c in calls]
    assert response.headers["X-RateLimit-Remaining"]  # the admission's window, as ever
    assert settle(runtime, sent["id"]) == {sent["id"]: "delivered"}
    (delivered,) = mail_for(runtime, sent["id"])
    assert parse(delivered)["To"] == to


def test_a_key_revoked_after_it_was_remembered_is_refused_and_nothing_is_stored(runtime: Any) -> None:
    sender = verified_sender(runtime)
    admin = sender.live.with_key(make_key(sender.id))
    _warm(sender)
    used = _used(admin)
    assert admin.delete(f"/v3/keys/{_key_id(sender.live)}").status_code == 200

    response, calls = _recorded(lambda: sender.live.post("/v3/messages", json=message(sender.address, recipient())))

    assert_error(response, 401, "unauthorized")
    assert _ran_beside_the_admission(calls)  # the send's reads started on the remembered principal...
    assert _stored(runtime, calls) == []  # ...and stored nothing
    assert _used(admin) == used  # its quota reservation given back


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ("{not json", {"Content-Type": "application/json"}),
        ('{"from": "a@b.example", "to": 5}', {"Content-Type": "application/json"}),
        ('{"from": "a@b.example", "to": ["x@y.example"], "subject": "s", "text": "t"}', {"Content-Type": "text/plain"}),
    ],
)
def test_a_revoked_key_with_a_bad_body_is_still_401(runtime: Any, body: str, headers: dict[str, str]) -> None:
    sender = verified_sender(runtime)
    admin = sender.live.with_key(make_key(sender.id))
    _warm(sender)
    assert admin.delete(f"/v3/keys/{_key_id(sender.live)}").status_code == 200

    assert_error(sender.live.post("/v3/messages", data=body, headers=headers), 401, "unauthorized")


def test_a_revoked_key_sending_with_an_unknown_template_is_still_401(runtime: Any) -> None:
    sender = verified_sender(runtime)
    admin = sender.live.with_key(make_key(sender.id))
    _warm(sender)
    assert admin.delete(f"/v3/keys/{_key_id(sender.live)}").status_code == 200

    response = sender.live.post("/v3/messages", json={**message(sender.address), "template_id": "tmpl_nothing"})

    assert_error(response, 401, "unauthorized")


@pytest.mark.parametrize(("status", "code"), [(AccountStatus.SUSPENDED, "account_suspended")])
def test_an_account_suspended_after_its_key_was_remembered_is_refused(
    runtime: Any, status: AccountStatus, code: str
) -> None:
    sender = verified_sender(runtime)
    _warm(sender)
    used = _used(sender.live)
    operator = operator_root.operator_service()
    operator.set_status(sender.id, status)
    try:
        response, calls = _recorded(lambda: sender.live.post("/v3/messages", json=message(sender.address, recipient())))
    finally:
        operator.set_status(sender.id, AccountStatus.ACTIVE)

    assert_error(response, 403, code)
    assert _ran_beside_the_admission(calls)
    assert _stored(runtime, calls) == []
    assert _used(sender.live) == used


def test_a_narrowed_ip_allowlist_applies_to_the_next_send(runtime: Any) -> None:
    sender = verified_sender(runtime)
    admin = sender.live.with_key(make_key(sender.id))
    scoped = Sender(sender.account, sender.domain, sender.live.with_key(make_key(sender.id, allowlist=["127.0.0.0/8"])),
                    sender.test)  # fmt: skip
    _warm(scoped)
    key_id = _key_id(scoped.live)
    used = _used(admin)

    narrowed = admin.patch(f"/v3/keys/{key_id}", json={"ip_allowlist": [{"cidr": "10.0.0.0/8"}]})
    assert narrowed.status_code == 200, narrowed.text
    response, calls = _recorded(lambda: scoped.live.post("/v3/messages", json=message(scoped.address)))
    assert_error(response, 403, "ip_not_allowed")
    assert _ran_beside_the_admission(calls)
    assert _stored(runtime, calls) == []
    assert _used(admin) == used

    widened = admin.patch(f"/v3/keys/{key_id}", json={"ip_allowlist": [{"cidr": "127.0.0.1/32"}]})
    assert widened.status_code == 200, widened.text
    accepted(scoped.live.post("/v3/messages", json=message(scoped.address, recipient())))
    assert _used(admin) == (used[0] + 1, used[1] + 1)


def test_a_spent_rate_window_is_429_with_retry_after_and_nothing_is_stored(runtime: Any) -> None:
    account = make_account(rate_limit=3)
    domain = put_verified_domain(account.id)
    sender = Sender(account, domain, Api(runtime.base_url, account.live_key), Api(runtime.base_url, account.test_key))
    runtime.clock.advance(60 - runtime.clock.now().timestamp() % 60 + 0.5)  # the start of a window
    _warm(sender)  # 1
    accepted(sender.live.post("/v3/messages", json=message(sender.address, recipient())))  # 2
    used = _used(sender.live)  # 3: the window is spent

    response, calls = _recorded(lambda: sender.live.post("/v3/messages", json=message(sender.address, recipient())))

    assert_error(response, 429, "rate_limited")
    assert 1 <= int(response.headers["Retry-After"]) <= 60
    assert (response.headers["X-RateLimit-Limit"], response.headers["X-RateLimit-Remaining"]) == ("3", "0")
    assert _ran_beside_the_admission(calls)
    assert _stored(runtime, calls) == []
    runtime.clock.advance(int(response.headers["Retry-After"]))
    assert _used(sender.live) == used


def test_a_send_to_a_list_created_after_the_key_was_remembered_is_a_list_send(runtime: Any) -> None:
    """The remembered account knew no list (list_count 0: no lookup); the admission reads it again,
    differs, and the send runs again on the admitted principal: a list send, its first run given back."""
    sender = verified_sender(runtime)
    admin = sender.live.with_key(make_key(sender.id))  # its admissions leave the sender's key remembered as it was
    _warm(sender)
    address = f"news-{uuid.uuid4().hex[:8]}@lists.example"
    created = admin.post("/v3/lists", json={"address": address, "name": "News"})
    assert created.status_code == 201, created.text
    used = _used(admin)

    response = accepted(sender.live.post("/v3/messages", json=message(sender.address, address)))

    assert response["list_send"] is True and response["list_id"] == created.json()["id"]
    assert _used(admin) == used  # the speculative run's reservation given back
