"""tests/support.py's eventually(): the one way tests wait."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.support import eventually


@dataclass
class Pending:
    """A falsy answer that says which call gave it."""

    call: int

    def __bool__(self) -> bool:
        return False


class Probe:
    """Answers from a script, one entry per call (the last repeats); exceptions are raised."""

    def __init__(self, *script: object) -> None:
        self.script = script
        self.calls = 0

    def __call__(self) -> object:
        self.calls += 1
        answer = self.script[min(self.calls, len(self.script)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_returns_the_first_truthy_value() -> None:
    probe = Probe(None, 0, "", [], "ready", "later")
    assert eventually(probe, 5, interval=0) == "ready"
    assert probe.calls == 5


def test_an_exception_is_not_yet_and_a_later_value_wins() -> None:
    probe = Probe(ConnectionError("refused"), AssertionError("3 of 8"), {"status": "completed"})
    assert eventually(probe, 5, interval=0) == {"status": "completed"}
    assert probe.calls == 3


def test_raises_with_what_it_waited_for_and_the_last_value_seen() -> None:
    calls = 0

    def pending() -> Pending:
        nonlocal calls
        calls += 1
        return Pending(calls)

    with pytest.raises(AssertionError) as failed:
        eventually(pending, 0.05, interval=0.01, waiting_for="the export to finish")
    message = str(failed.value)
    assert message.startswith("gave up waiting for the export to finish after 0.05 s")
    assert message.endswith(f"({calls} tries); last returned Pending(call={calls})") and calls > 1
    assert failed.value.__cause__ is None


def test_raises_with_the_last_exception_raised() -> None:
    calls = 0

    def failing() -> bool:
        nonlocal calls
        calls += 1
        raise ValueError(f"attempt {calls}")

    with pytest.raises(AssertionError) as failed:
        eventually(failing, 0.05, interval=0.01)
    assert str(failed.value).endswith(f"({calls} tries); last raised ValueError: attempt {calls}")
    assert "failing" in str(failed.value)  # the probe's name when not told what it waits for
    assert isinstance(failed.value.__cause__, ValueError) and str(failed.value.__cause__) == f"attempt {calls}"


def test_a_probe_that_raised_before_returning_falsy_reports_the_value() -> None:
    probe = Probe(ValueError("early"), 0)
    with pytest.raises(AssertionError, match=r"last returned 0$") as failed:
        eventually(probe, 0.05, interval=0.01)
    assert failed.value.__cause__ is None


def test_calls_once_even_with_no_time_and_never_sleeps_past_the_deadline() -> None:
    probe = Probe(False)
    with pytest.raises(AssertionError, match=r"\(1 try\); last returned False$"):
        eventually(probe, 0, interval=60)
    assert probe.calls == 1


def test_pytest_fail_in_a_probe_ends_the_wait_at_once() -> None:
    probe = Probe(None)

    def stop() -> None:
        probe()
        pytest.fail("the runtime exited")

    with pytest.raises(pytest.fail.Exception, match="the runtime exited"):
        eventually(stop, 5)
    assert probe.calls == 1
