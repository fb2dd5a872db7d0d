"""run_each: every task runs, `done` hears of each finished one, the first failure stops the rest."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from postline.shared.parallel import run_each


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
