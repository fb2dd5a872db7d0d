"""The relay's TLS session counts, buffered in memory (RFC 8460 reports are statistics): one write per
distinct outcome and domain-day at each flush, by count, by time, before a report run and at close; a
failed write is kept for the next flush, never lost or written twice."""

from __future__ import annotations

import threading
from datetime import date

import pytest

from postline.delivery.tls_sessions import NO_POLICY, ResultType, TlsSession
from postline.shared.clock import MovableClock
from postline.tlsrpt.service import TlsSessionRecorder
from tests.support import eventually

OK = TlsSession("a.example", NO_POLICY, None, "mx.a.example", "192.0.2.1")
NO_TLS = TlsSession("a.example", NO_POLICY, ResultType.STARTTLS_NOT_SUPPORTED, "mx2.a.example", "192.0.2.2")
OTHER = TlsSession("b.example", NO_POLICY, None, "mx.b.example", "192.0.2.3")


class CountingStore:
    """The store's record() as the recorder sees it: each write, and (when told) a failing one."""

    def __init__(self) -> None:
        self.writes: list[tuple[date, TlsSession, int]] = []
        self.fail_for: set[str] = set()
        self.lock = threading.Lock()

    def record(self, session: TlsSession, day: date, count: int = 1) -> None:
        if session.policy_domain in self.fail_for:
            raise ConnectionError("DynamoDB did not answer")
        with self.lock:
            self.writes.append((day, session, count))

    def totals(self) -> dict[tuple[date, TlsSession], int]:
        totals: dict[tuple[date, TlsSession], int] = {}
        for day, session, count in self.writes:
            totals[(day, session)] = totals.get((day, session), 0) + count
        return totals


@pytest.fixture
def store() -> CountingStore:
    return CountingStore()


def test_sessions_are_written_once_the_buffer_holds_n_of_them_one_write_per_outcome(store: CountingStore) -> None:
    clock = MovableClock()
    recorder = TlsSessionRecorder(store, clock, every=10, seconds=3600)  # type: ignore[arg-type]
    for _ in range(6):
        recorder.record(OK)
    for _ in range(3):
        recorder.record(NO_TLS)
    assert store.writes == []  # 9 < 10
    recorder.record(OTHER)
    day = clock.now().date()
    assert sorted(store.writes, key=lambda w: w[1].mx_host) == [(day, OK, 6), (day, OTHER, 1), (day, NO_TLS, 3)]
    assert recorder.flush() == 0


def test_what_is_left_is_written_by_the_timer_and_by_close(store: CountingStore) -> None:
    clock = MovableClock()
    timed = TlsSessionRecorder(store, clock, every=1000, seconds=0.05)  # type: ignore[arg-type]
    timed.record(OK)
    timed.record(OK)
    day = clock.now().date()
    eventually(lambda: store.totals() == {(day, OK): 2}, 5.0, waiting_for="the timer's flush")
    timed.close()

    closing = TlsSessionRecorder(store, clock, every=1000, seconds=3600)  # type: ignore[arg-type]
    closing.record(OTHER)
    closing.close()  # the relay task's SIGTERM
    assert store.writes[-1] == (clock.now().date(), OTHER, 1)


def test_sessions_on_both_sides_of_midnight_count_for_their_own_day(store: CountingStore) -> None:
    clock = MovableClock()
    recorder = TlsSessionRecorder(store, clock, every=1000, seconds=3600)  # type: ignore[arg-type]
    first = clock.now().date()
    recorder.record(OK)
    clock.advance(86_400)
    recorder.record(OK)
    recorder.flush()
    assert store.totals() == {(first, OK): 1, (clock.now().date(), OK): 1}


def test_a_failed_write_is_kept_for_the_next_flush_and_the_others_are_not_written_twice(store: CountingStore) -> None:
    clock = MovableClock()
    recorder = TlsSessionRecorder(store, clock, every=1000, seconds=3600)  # type: ignore[arg-type]
    for session in (OK, OK, OTHER, OTHER, OTHER):
        recorder.record(session)
    store.fail_for = {"b.example"}
    assert recorder.flush() == 2  # a.example's; b.example's 3 stay in memory
    recorder.record(OTHER)
    store.fail_for = set()
    assert recorder.flush() == 4
    day = clock.now().date()
    assert store.totals() == {(day, OK): 2, (day, OTHER): 4}


def test_concurrent_deliveries_lose_no_count(store: CountingStore) -> None:
    clock = MovableClock()
    recorder = TlsSessionRecorder(store, clock, every=7, seconds=0.01)  # type: ignore[arg-type]

    def deliver() -> None:
        for _ in range(500):
            recorder.record(OK)

    threads = [threading.Thread(target=deliver) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recorder.close()
    assert store.totals() == {(clock.now().date(), OK): 4000}
