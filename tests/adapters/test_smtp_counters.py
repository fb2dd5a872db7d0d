"""The SMTP submission counters on the counters table (moto): windows and connection seats, which
every submission task shares."""

from __future__ import annotations

import uuid

from postline.smtp.store import DynamoSubmissionCounters
from postline.usage.store import DynamoCounterStore
from tests.aws_stack import InProcessStack


def counters(stack: InProcessStack) -> DynamoSubmissionCounters:
    db, table = stack.client("dynamodb"), stack.env["COUNTERS_TABLE"]
    return DynamoSubmissionCounters(db, table, DynamoCounterStore(db, table))


def test_a_seat_per_connection_up_to_the_limit_and_a_left_seat_is_free_again(stack: InProcessStack) -> None:
    store, account = counters(stack), f"acct_{uuid.uuid4().hex}"
    taken = [store.take_seat(account, f"c{i}", limit=3, now=1000, until=1600) for i in range(4)]
    assert taken == [True, True, True, False]
    store.leave_seat(account, "c1")
    store.leave_seat(account, "c1")  # twice: still one seat freed
    assert store.take_seat(account, "c4", limit=3, now=1000, until=1600)
    assert not store.take_seat(account, "c5", limit=3, now=1000, until=1600)


def test_seats_of_connections_whose_task_died_are_freed_once_their_lease_ran_out(stack: InProcessStack) -> None:
    store, account = counters(stack), f"acct_{uuid.uuid4().hex}"
    assert store.take_seat(account, "dead", limit=1, now=1000, until=1600)
    assert not store.take_seat(account, "new", limit=1, now=1599, until=2199)
    assert store.take_seat(account, "new", limit=1, now=1600, until=2200)


def test_a_renewed_seat_outlives_its_first_lease(stack: InProcessStack) -> None:
    store, account = counters(stack), f"acct_{uuid.uuid4().hex}"
    assert store.take_seat(account, "busy", limit=1, now=1000, until=1600)
    store.renew_seat(account, "busy", until=2200)
    assert not store.take_seat(account, "other", limit=1, now=1700, until=2300)
    store.renew_seat(account, "gone", until=2200)  # never held (or freed as stale): no error, no seat
    assert not store.take_seat(account, "other", limit=1, now=1700, until=2300)


def test_submission_and_failed_auth_windows_count_apart(stack: InProcessStack) -> None:
    store, account, source = counters(stack), f"acct_{uuid.uuid4().hex}", f"10.{uuid.uuid4().int % 250}.0.1"
    assert [store.count_submission(account, 5000) for _ in range(3)] == [1, 2, 3]
    assert store.count_submission(account, 5001) == 1
    assert store.auth_failures(source, 4980) == 0
    assert [store.count_auth_failure(source, 4980) for _ in range(2)] == [1, 2]
    assert store.auth_failures(source, 4980) == 2
    assert store.auth_failures(source, 5040) == 0
