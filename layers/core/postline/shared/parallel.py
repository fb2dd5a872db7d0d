"""Running a request's independent storage calls side by side, within the request.

A 5,000-recipient batch is 500 chunks of about two calls each: one after another, a thousand
cloud round trips would come too close to API Gateway's 29 s cut; eight at a time divide that by
eight (bench b measures it). The standard library's pool is enough; what it lacks is stopping the rest at
the first failure while still learning which tasks finished, which the caller's accounting needs.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait

# botocore keeps 10 connections a client by default: more workers would queue for a connection.
MAX_WORKERS = 8


def run_each(tasks: Sequence[Callable[[], None]], done: Callable[[int], None], workers: int = MAX_WORKERS) -> None:
    """Runs every task, up to `workers` at once, and calls `done(index)` (in this thread) for each
    task that finished. At the first failure the tasks not yet started are dropped, the running
    ones are waited for (and reported if they finish), then the failure is raised.

    The workers are named after the calling thread, so that traces and the bench's call recorder
    attribute their calls to the request that made them, and each task runs in a copy of the
    calling thread's context (its context variables: the request's, the audit entries it collects)."""
    if len(tasks) <= 1 or workers <= 1:
        for index, task in enumerate(tasks):
            task()
            done(index)
        return
    prefix = f"{threading.current_thread().name} > part"
    with ThreadPoolExecutor(max_workers=min(workers, len(tasks)), thread_name_prefix=prefix) as pool:
        futures: dict[Future[None], int] = {
            pool.submit(contextvars.copy_context().run, task): index for index, task in enumerate(tasks)
        }
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
