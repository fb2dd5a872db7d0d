"""Running a request's independent storage calls side by side, within the request.

A 5,000-recipient batch is 500 chunks of about two calls each: one after another, a thousand
cloud round trips would come too close to API Gateway's 29 s cut; eight at a time divide that by
eight (bench b measures it). The standard library's pool is enough; what it lacks is stopping the rest at
the first failure while still learning which tasks finished, which the caller's accounting needs.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

# botocore keeps 10 connections a client by default: more workers would queue for a connection.
MAX_WORKERS = 8
_POOLS = itertools.count(1)  # numbers each run's set of workers in their names (the cloud model groups by it)


def run_each(tasks: Sequence[Callable[[], None]], done: Callable[[int], None], workers: int = MAX_WORKERS) -> None:
    """Runs every task, up to `workers` at once, and calls `done(index)` (in this thread) for each
    task that finished. At the first failure the tasks not yet started are dropped, the running
    ones are waited for (and reported if they finish), then the failure is raised.

    The workers are named after the calling thread ("<caller> > part<run>_<worker>"), so that traces
    and the bench's call recorder attribute their calls to the request that made them (and the cloud
    model times each run as its busiest worker, runs one after another), and each task runs in a copy of the
    calling thread's context (its context variables: the request's, the audit entries it collects)."""
    if len(tasks) <= 1 or workers <= 1:
        for index, task in enumerate(tasks):
            task()
            done(index)
        return
    prefix = f"{threading.current_thread().name} > part{next(_POOLS)}"
    # No task starts before all are handed out: a worker that finished its first task before the next
    # was submitted (this thread kept off the CPU a moment) would take it, and the two would run one
    # after the other on a busy machine. So each of the first `workers` tasks has a worker of its own.
    go = threading.Event()

    def gated(task: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            go.wait()
            task()

        return run

    with ThreadPoolExecutor(max_workers=min(workers, len(tasks)), thread_name_prefix=prefix) as pool:
        try:
            futures: dict[Future[None], int] = {
                pool.submit(contextvars.copy_context().run, gated(task)): index for index, task in enumerate(tasks)
            }
        finally:
            go.set()
        pending = set(futures)
        failure: BaseException | None = None
        while pending and failure is None:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                if future.exception() is None:
                    done(futures[future])
                elif failure is None:
                    failure = future.exception()
        if failure is not None:
            for future in pending:
                future.cancel()
            for future in pending:
                if not future.cancelled() and future.exception() is None:  # waits for the running ones
                    done(futures[future])
            raise failure


A = TypeVar("A")
B = TypeVar("B")


def side_by_side(first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """Two calls that do not depend on each other, at once: their results, or, when either failed,
    the first one's failure if it failed, else the second's, raised once both ended: the same answer
    as running them one after another gives, except that the second ran anyway. So both must be
    safe to run whatever the other finds (reads, or a write the caller undoes when the other fails:
    the caller that needs to see both outcomes uses `outcomes`)."""
    done, failed = outcomes(first, second)
    for failure in failed:
        if failure is not None:
            raise failure
    return done[0], done[1]


def outcomes(*tasks: Callable[[], Any]) -> tuple[list[Any], list[BaseException | None]]:
    """Runs the tasks at once (one worker each): each one's result (None where it failed) and each
    one's failure (None where it succeeded), in the order given, once every task ended."""
    results: list[Any] = [None] * len(tasks)
    failures: list[BaseException | None] = [None] * len(tasks)

    def kept(index: int) -> Callable[[], None]:
        def task() -> None:
            try:
                results[index] = tasks[index]()
            except BaseException as failure:  # handed back to the caller, in order
                failures[index] = failure

        return task

    run_each([kept(index) for index in range(len(tasks))], lambda _: None, workers=len(tasks))
    return results, failures
