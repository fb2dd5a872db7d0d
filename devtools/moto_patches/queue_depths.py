"""Many queues' depths in one answer: how many messages each holds receivable and in flight.

Why: `Runtime.drain` asks whether every pump is idle, and an SQS pump's answer was a
GetQueueAttributes of its own (ApproximateNumberOfMessages and ...NotVisible): with a dozen
queues, a dozen requests on every look, and the tests' drains look every 20 ms while they wait.
Those requests were a fifth of the runtime's interpreter time in an e2e module. One request now
answers for every queue.

How: `GET <path>?queue=<name>&queue=<name>` answers `{"<name>": [receivable, in_flight]}` from
moto's SQS backend (the runtime's account and region), the very properties GetQueueAttributes
reports for those two attributes; a queue that does not exist is left out. Not a patch: it reads
moto's `sqs_backends` and two `Queue` properties, which `check_internals()` confirms.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs

from moto.sqs.models import Queue, sqs_backends

from devtools.local.cloudformation import ACCOUNT_ID, REGION

_PROPERTIES = ("approximate_number_of_messages", "approximate_number_of_messages_not_visible")


def check_internals() -> None:
    if not all(isinstance(vars(Queue).get(name), property) for name in _PROPERTIES):
        raise RuntimeError("moto changed the SQS Queue's message counts, which queue_depths.py relies on; review it")


def depths(names: Iterable[str]) -> dict[str, list[int]]:
    queues = sqs_backends[ACCOUNT_ID][REGION].queues
    found = {name: queues.get(name) for name in names}
    return {
        name: [queue.approximate_number_of_messages, queue.approximate_number_of_messages_not_visible]
        for name, queue in found.items()
        if queue is not None
    }


def wsgi(app: Any, path: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """`app`, plus `GET <path>?queue=...` answering the named queues' depths."""
    check_internals()

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != path:
            answer: Iterable[bytes] = app(environ, start_response)
            return answer
        names = parse_qs(environ.get("QUERY_STRING", "")).get("queue", [])
        body = json.dumps(depths(names)).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    return serve
