"""run_each: every task runs, `done` hears of each finished one, the first failure stops the rest;
side_by_side and outcomes: independent calls at once, failures in the order given."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from postline.shared.parallel import outcomes, run_each, side_by_side


class Boom(Exception):
    pass


def test_every_task_runs_once_and_is_reported_done() -> None:
    ran: list[int] = []
    done: list[int] = []

    def task(index: int) -> Callable[[], None]:
        return lambda: ran.append(index)

    run_each([task(i) for i in range(50)], done.append, workers=4)

    assert sorted(ran) == list(range(50))
    assert sorted(done) == list(range(50))


def test_workers_are_named_after_the_calling_thread() -> None:
    names: list[str] = []

    def outer() -> None:
        run_each([lambda: names.append(threading.current_thread().name)] * 3, lambda _: None, workers=2)

    thread = threading.Thread(target=outer, name="request 7")
    thread.start()
    thread.join()

    assert names and all(name.startswith("request 7 > part") for name in names)


def test_the_first_failure_drops_the_tasks_not_started_and_waits_for_the_running_ones() -> None:
    release = threading.Event()
    ran: list[int] = []
    done: list[int] = []

    def slow() -> None:  # running when the failure comes: waited for and reported
        release.wait(5)
        time.sleep(0.05)
        ran.append(0)

    def fail() -> None:
        release.set()
        raise Boom

    def later(index: int) -> Callable[[], None]:
        def task() -> None:  # takes a while: the failure is seen long before a worker could run them all
            time.sleep(0.05)
            ran.append(index)

        return task

    with pytest.raises(Boom):
        run_each([slow, fail, *(later(i) for i in range(2, 40))], done.append, workers=2)

    assert 0 in ran and 0 in done
    assert 1 not in done
    assert len(ran) < 39  # most of the queued tasks never started
    assert set(done) == set(ran)


def test_one_task_or_one_worker_runs_inline_in_order() -> None:
    order: list[str] = []
    run_each([lambda: order.append(threading.current_thread().name)] * 2, lambda _: None, workers=1)
    assert order == [threading.current_thread().name] * 2


def test_each_run_names_its_own_workers() -> None:
    """The cloud model times each run as its busiest worker, runs one after another: a run's workers
    share a number no other run's have."""
    names: list[set[str]] = [set(), set()]

    def noted(run: set[str]) -> Callable[[], None]:
        return lambda: run.add(threading.current_thread().name)

    def outer() -> None:
        for run in names:
            run_each([noted(run)] * 2, lambda _: None, workers=2)

    thread = threading.Thread(target=outer, name="request 8")
    thread.start()
    thread.join()

    runs = [{name.removeprefix("request 8 > part").split("_")[0] for name in run} for run in names]
    assert all(len(run) == 1 for run in runs) and runs[0] != runs[1]


def test_side_by_side_runs_both_at_once_and_returns_both_results() -> None:
    both = threading.Barrier(2, timeout=5)  # neither returns before the other started

    def first() -> int:
        both.wait()
        return 1

    def second() -> str:
        both.wait()
        return "two"

    assert side_by_side(first, second) == (1, "two")


def test_side_by_side_raises_the_first_calls_failure_as_one_after_another_would() -> None:
    class Other(Exception):
        pass

    ran: list[str] = []

    def first() -> None:
        time.sleep(0.05)  # fails after the second did: still the one raised
        raise Boom

    def second() -> None:
        ran.append("second")
        raise Other

    with pytest.raises(Boom):
        side_by_side(first, second)
    with pytest.raises(Other):
        side_by_side(lambda: 1, second)
    assert ran == ["second", "second"]


def test_outcomes_hands_back_every_result_and_failure_in_order() -> None:
    failure = Boom()

    def fails() -> None:
        raise failure

    results, failures = outcomes(lambda: 1, fails, lambda: 3)

    assert results == [1, None, 3]
    assert failures == [None, failure, None]


def test_each_task_up_to_the_workers_has_a_worker_of_its_own_however_quick() -> None:
    """A worker done with its task before the next was handed out would take that one too, and the
    two would run one after the other: no task starts before all are handed out."""
    lock = threading.Lock()
    for _ in range(20):
        names: set[str] = set()

        def task(names: set[str] = names) -> None:
            with lock:
                names.add(threading.current_thread().name)

        run_each([task] * 8, lambda _: None, workers=8)
        assert len(names) == 8
