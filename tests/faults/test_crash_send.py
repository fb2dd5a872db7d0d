"""A crash at every AWS call of the send function (POST /v3/messages), and a transient AWS error at
each (issue 31's harness: tests/faults/crash.py), against the quota's reservation: a single send
counts each distinct recipient beside its screening reads and gives back what screening rejects
(sending/service.py, _Reservation).

Each case is a fresh account's send to three recipients, one of them suppressed, without an
Idempotency-Key. Then:
- answered 202: the account counted exactly the two that go out, and both are delivered;
- answered 5xx by an invocation that lived (a transient error): nothing was counted, nothing stored;
- an invocation that died (502): never too little (a stored message counted exactly its two), and
  never more than the three it reserved. Without an Idempotency-Key the client cannot tell whether a
  send it saw fail went out, and neither can the quota; a keyed send's retry settles it exactly (its
  charge: tests/faults/test_crash_jobs.py covers the list pages that count that way).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from devtools.local.runtime import Runtime
from tests.e2e.sending_support import mail_to, message, recipient, verified_sender
from tests.e2e.support import Api
from tests.faults.crash import CallFault, sweep

pytestmark = pytest.mark.e2e
WORKER = "SendMessageFunction"
REDELIVERY_SECONDS = 1000  # past the send queue's visibility timeout and the message's lease


def _used(api: Api) -> tuple[int, int]:
    body = api.get("/v3/usage").json()
    return body["emails"]["used"], body["daily"]["used"]


def _settle(runtime: Runtime) -> None:
    runtime.drain(60)
    runtime.advance(REDELIVERY_SECONDS)
    runtime.drain(60)


def _clear_of_midnight(runtime: Runtime) -> None:
    """Past the next UTC midnight when the case would cross it: the daily count it reads after
    settling would start again there. (Every case moves the session's clock on by its settling, so
    where a sweep crosses a day depends on the tests before it.)"""
    now = runtime.clock.now().astimezone(UTC)
    midnight = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1)
    if midnight - now < timedelta(seconds=2 * REDELIVERY_SECONDS + 600):
        runtime.advance((midnight - now).total_seconds() + 1)


def _send(runtime: Runtime, case: str) -> None:
    _clear_of_midnight(runtime)
    sender = verified_sender(runtime)
    kept, also, gone = recipient("kept"), recipient("also"), recipient("gone")
    suppressed = sender.live.post("/v3/suppressions", json={"type": "unsubscribes", "email": gone})
    assert suppressed.status_code in (200, 201), f"{case}: {suppressed.text}"

    response = sender.live.post("/v3/messages", json=message(sender.address, kept, also, gone))
    _settle(runtime)
    used = _used(sender.live)
    mailed = {address: len(mail_to(runtime, address)) for address in (kept, also, gone)}

    if response.status_code == 202:
        assert used == (2, 2), f"{case}: accepted, counted {used}"
        assert mailed == {kept: 1, also: 1, gone: 0}, f"{case}: mailed {mailed}"
    elif response.status_code == 502:  # the invocation died
        stored = mailed[kept] > 0
        assert mailed == ({kept: 1, also: 1, gone: 0} if stored else {kept: 0, also: 0, gone: 0}), case
        if stored:
            assert used == (2, 2), f"{case}: died after storing, counted {used}"
        else:
            assert used in ((0, 0), (2, 2), (3, 3)), f"{case}: died before storing, counted {used}"
    else:
        assert response.status_code >= 500, f"{case}: {response.status_code} {response.text}"
        assert used == (0, 0), f"{case}: answered {response.status_code}, counted {used}"
        assert mailed == {kept: 0, also: 0, gone: 0}, f"{case}: answered {response.status_code}, mailed {mailed}"


def test_a_fault_at_every_call_of_a_send_keeps_its_quota_within_its_reservation(runtime: Runtime) -> None:
    sweep(WORKER, lambda case: _send(runtime, case), CallFault)
