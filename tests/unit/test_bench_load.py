"""bench/load.py's checks (section o): a window admitting more or fewer than its limit, a 429 without
Retry-After, a 5xx, a lost send, an overload never offered, an SMTP second over its rate are each
a failure, listed among the run's missed aims; a run that held them all lists none."""

from __future__ import annotations

import dataclasses

from bench import report
from bench.load import Load, LoadRun, Mail, SmtpLoad, SmtpSecond, Window, seconds_of
from bench.run import Options, Results
from bench.stats import Latencies

LIMIT = 600
_LATENCY = Latencies(count=1, total=0.05, mean=0.05, p50=0.05, p99=0.05)
_RATE = "452 4.7.0 Submission rate of 10 messages a second exceeded; retry shortly"


def _windows() -> list[Window]:
    """Five windows at 2x: a partial first (under the limit), three whole ones, a partial last."""
    return [
        Window(60, 500, 500, 0, 0, whole=False),
        *(Window(60 * i, 1_200, 600, 600, 0, whole=True) for i in (2, 3, 4)),
        Window(300, 700, 600, 100, 0, whole=False),
    ]


def _run(**changes: object) -> LoadRun:
    held = LoadRun(
        plan="free",
        limit=LIMIT,
        multiple=2.0,
        seconds=300,
        clients="4 processes x 4 connections",
        offered=4_600,
        offered_per_minute=1_200,
        statuses={200: 1_800, 202: 600, 429: 2_200},
        windows=_windows(),
        missing_retry_after=0,
        missing_rate_headers=0,
        wrong_limit=0,
        server_errors=0,
        no_answer=0,
        accepted_sends=600,
        final={"delivered": 598, "bounced": 2},
        drain_seconds=3.0,
        admitted=_LATENCY,
        admitted_sends=_LATENCY,
        admitted_gets=_LATENCY,
        limited=_LATENCY,
        load_average=1.0,
        cpu_per_call=0.01,
    )
    return dataclasses.replace(held, **changes)  # type: ignore[arg-type]


def _smtp(**changes: object) -> SmtpLoad:
    held = SmtpLoad(
        plan="free",
        connections=5,
        refused_connection="421 4.7.0 Too many simultaneous connections for this account (5); closing",
        per_second=10,
        seconds=60,
        offered=1_200,
        offered_per_second=20.0,
        accepted=600,
        refusals={_RATE: 600},
        seconds_checked=[SmtpSecond(second, 9, 10, 1) for second in range(100, 160)],
        data_refusals={},
        sent=150,
        final={"delivered": 150},
        load_average=1.0,
    )
    return dataclasses.replace(held, **changes)  # type: ignore[arg-type]


def _missed(load: Load) -> list[str]:
    empty = Results(Options(), True, None, [], None, [], [], [], [], None, None, [], None, None, [], None, [], 0, 0, {})
    return report.missed(dataclasses.replace(empty, load=load))


def test_a_run_that_held_every_check_misses_none() -> None:
    load = Load(runs=[_run(), _run(multiple=0.5, windows=[Window(120, 300, 300, 0, 0, whole=True)])], smtp=[_smtp()])

    assert load.failures() == []
    assert _missed(load) == []


def test_a_window_admitting_one_more_or_one_fewer_than_its_limit_fails() -> None:
    over = Window(180, 1_200, 601, 599, 0, whole=True)
    under = Window(240, 1_200, 599, 601, 0, whole=True)
    limited_under_the_limit = Window(300, 500, 499, 1, 0, whole=False)

    assert not over.exact(LIMIT) and not under.exact(LIMIT) and not limited_under_the_limit.exact(LIMIT)
    failures = _run(windows=[*_windows()[:2], over, under, limited_under_the_limit]).failures()
    assert len(failures) == 3
    assert all("(the window allows 600)" in line for line in failures)


def test_each_broken_promise_is_its_own_failure_and_a_missed_aim() -> None:
    run = _run(
        missing_retry_after=3,
        missing_rate_headers=2,
        wrong_limit=7,
        server_errors=1,
        no_answer=4,
        final={"delivered": 590},
    )
    missed = _missed(Load(runs=[run]))

    assert len(missed) == 6
    assert any("7 answers with an X-RateLimit-Limit other than 600" in line for line in missed)
    assert all(line.startswith("o. free at 2x 600/min: ") for line in missed)
    assert any("3 429s without Retry-After" in line for line in missed)
    assert any("1 5xx answers" in line for line in missed)
    assert any("10 of 600 accepted sends without a final status" in line for line in missed)


def test_an_overload_the_machine_could_not_offer_is_not_passed() -> None:
    slow = [Window(60 * i, 500, 500, 0, 0, whole=0 < i < 5) for i in range(1, 6)]
    short = [Window(60, 300, 300, 0, 0, whole=False), Window(120, 500, 500, 0, 0, whole=False)]

    assert [line.split(": ", 1)[1][:9] for line in _run(windows=slow).failures()] == ["not shown"]
    assert "no whole window" in _run(windows=short).failures()[0]
    assert _run(multiple=0.5, windows=slow).failures() == []  # half the limit: no 429 is the check


def test_an_smtp_second_over_its_rate_or_short_of_it_fails() -> None:
    over = SmtpSecond(200, 11, 9, 0)
    short = SmtpSecond(201, 8, 12, 1)  # refusals, yet at most 9 accepted
    failures = _smtp(seconds_checked=[over, short]).failures()

    assert len(failures) == 2
    assert "11 accepted in the second" in failures[0] and "at most 9 accepted" in failures[1]


def test_an_smtp_refusal_of_another_kind_or_a_connection_past_the_cap_let_in_fails() -> None:
    let_in = "235 2.7.0 Authentication successful"
    failures = _smtp(refused_connection=let_in, refusals={"451 4.3.0 Error": 1}).failures()

    assert len(failures) == 2
    assert _smtp(refusals={}).failures()[0].endswith("no MAIL was refused")


def test_a_mail_is_placed_in_its_second_only_when_both_clock_reads_are_in_it() -> None:
    mails = [
        Mail(10.1, 10.2, "250 2.1.0 OK", None, None),
        Mail(10.3, 10.4, _RATE, None, None),
        Mail(10.9, 11.1, "250 2.1.0 OK", None, None),  # either second
        Mail(11.5, 11.6, "250 2.1.0 OK", None, None),
    ]

    assert seconds_of(mails) == [SmtpSecond(10, 1, 1, 1), SmtpSecond(11, 1, 0, 1)]
