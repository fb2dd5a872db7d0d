"""The runtime's pipeline lets API calls go first (devtools/local/activity.py): while a call is in
flight a pipeline batch starts once per turn across the runtime, and at once when none is; and a
batch of a mapping with a batching window lets the prompt mappings' batches go first."""

from __future__ import annotations

import threading

import pytest

from devtools.local.activity import Activity

NEVER = 3600.0  # a turn no test waits for


def _turn_in_thread(activity: Activity, stopping: threading.Event | None = None) -> threading.Thread:
    thread = threading.Thread(target=activity.pipeline_turn, args=(stopping or threading.Event(),), daemon=True)
    thread.start()
    return thread


def test_without_calls_in_flight_every_batch_starts_at_once() -> None:
    activity = Activity(turn_seconds=NEVER)
    for _ in range(3):
        thread = _turn_in_thread(activity)
        thread.join(5)
        assert not thread.is_alive()


def test_while_a_call_is_in_flight_one_batch_per_turn_then_all_when_it_ends() -> None:
    activity = Activity(turn_seconds=NEVER)
    with activity.calling():
        first = _turn_in_thread(activity)
        first.join(5)
        assert not first.is_alive()  # the turn was due
        waiting = [_turn_in_thread(activity) for _ in range(3)]
        for thread in waiting:
            thread.join(0.2)
            assert thread.is_alive()  # the next turn is an hour away
    for thread in waiting:  # the call answered: the pipeline goes on at once
        thread.join(5)
        assert not thread.is_alive()


def test_turns_come_round_while_calls_keep_coming() -> None:
    activity = Activity(turn_seconds=0.05)
    with activity.calling():
        for _ in range(3):  # each waits for its turn, none for the call to end
            thread = _turn_in_thread(activity)
            thread.join(5)
            assert not thread.is_alive()


def test_a_stopping_pump_does_not_wait_for_its_turn() -> None:
    activity, stopping = Activity(turn_seconds=NEVER), threading.Event()
    with activity.calling():
        _turn_in_thread(activity).join(5)
        thread = _turn_in_thread(activity, stopping)
        thread.join(0.2)
        assert thread.is_alive()
        stopping.set()
        thread.join(5)
        assert not thread.is_alive()


def test_an_smtp_submission_in_flight_counts_as_a_call_held_to_the_tasks_settings() -> None:
    from devtools.local.runtime import submission_scope
    from postline import wiring
    from postline.config import RelayQueue, SettingsError
    from postline.deployment import SMTP_SETTINGS

    assert RelayQueue not in SMTP_SETTINGS
    activity = Activity(turn_seconds=NEVER)
    with submission_scope(activity):
        _turn_in_thread(activity).join(5)  # the turn that was due
        waiting = _turn_in_thread(activity)
        waiting.join(0.2)
        assert waiting.is_alive()  # the pipeline waits for the submission as for an API call
        with pytest.raises(SettingsError, match="does not declare"):
            wiring.settings(RelayQueue)  # a group the submission task is not given
    waiting.join(5)
    assert not waiting.is_alive()


def _request_in_thread(activity: Activity) -> threading.Thread:
    thread = threading.Thread(target=activity.pipeline_request, daemon=True)
    thread.start()
    return thread


def test_inside_a_batch_the_pipelines_requests_leave_one_per_slot_while_a_call_is_in_flight() -> None:
    """Issue 25 D6: batches already running when a call arrived kept the interpreter; now each of their
    AWS requests waits for a slot while calls are in flight (all threads together), and none when not."""
    activity = Activity(request_seconds=NEVER)
    for _ in range(3):
        _request_in_thread(activity).join(5)  # no call in flight: no wait
    with activity.calling():
        first = _request_in_thread(activity)
        first.join(5)
        assert not first.is_alive()  # the slot was due
        waiting = [_request_in_thread(activity) for _ in range(3)]
        for thread in waiting:
            thread.join(0.2)
            assert thread.is_alive()  # the next slot is an hour away
    for thread in waiting:
        thread.join(5)
        assert not thread.is_alive()


def test_request_slots_come_round_while_calls_keep_coming() -> None:
    activity = Activity(request_seconds=0.01)
    with activity.calling():
        threads = [_request_in_thread(activity) for _ in range(5)]
        for thread in threads:
            thread.join(5)
            assert not thread.is_alive()


def _deferred_in_thread(
    activity: Activity, most_seconds: float = NEVER, stopping: threading.Event | None = None
) -> threading.Thread:
    thread = threading.Thread(
        target=activity.deferred_turn, args=(stopping or threading.Event(), most_seconds), daemon=True
    )
    thread.start()
    return thread


def test_a_deferrable_batch_starts_at_once_when_no_prompt_batch_runs() -> None:
    activity = Activity()
    with activity.working():  # a deferrable batch, a schedule's delivery: not prompt
        thread = _deferred_in_thread(activity)
        thread.join(5)
        assert not thread.is_alive()


def test_a_deferrable_batch_waits_for_the_prompt_batches_then_starts() -> None:
    """The fan-out's first attempts (a mapping without a batching window) go before the metrics
    roll-up's batch (one with a window): in AWS neither slows the other."""
    activity = Activity()
    with activity.working(prompt=True):
        waiting = _deferred_in_thread(activity)
        with activity.working(prompt=True):
            pass  # another prompt batch came and went: the first still runs
        waiting.join(0.2)
        assert waiting.is_alive()
    waiting.join(5)
    assert not waiting.is_alive()


def test_a_deferrable_batch_is_not_starved_by_prompt_batches_that_never_end() -> None:
    activity = Activity()
    with activity.working(prompt=True):
        thread = _deferred_in_thread(activity, most_seconds=0.1)
        thread.join(5)
        assert not thread.is_alive()


def test_a_stopping_pump_does_not_wait_for_the_prompt_batches() -> None:
    activity, stopping = Activity(), threading.Event()
    with activity.working(prompt=True):
        thread = _deferred_in_thread(activity, stopping=stopping)
        thread.join(0.2)
        assert thread.is_alive()
        stopping.set()
        thread.join(5)
        assert not thread.is_alive()
