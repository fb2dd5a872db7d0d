"""k. Sending to a list: a list of 2,000 members (two of them suppressed) sent to through its address,
as a ratio of a batch of the same 2,000 recipients accepted through POST /v3/messages.batch.

With the runtime's pumps held (no dispatcher, no list worker running on its own), the list send is
accepted through the API (its 202 is one job write and one queue message), then the list worker's
step runs here, invocation by invocation, as the ListJobQueue's consumer would run it
(`ListSendService.run`: 4 pages of 500 members each, a checkpoint per page, the rest queued again),
until the job is done. The batch of the same recipients (a second list's members, fresh addresses,
so that each side stores all its messages) goes through the API while still held. Both sides render,
screen (suppressions in batched reads), charge the quota, seal, queue and store every message; the
list side also reads its members (a Query a page) and writes its checkpoints.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from bench.api import ApiClient
from devtools.local.runtime import Runtime
from postline import wiring

SUPPRESSED = 2
_BULK = 1_000  # members per bulk upsert call (the API's limit)


@dataclass(frozen=True)
class ListFanOut:
    members: int
    accepted: int
    suppressed: int
    accept_seconds: float  # the 202 of the send to the list
    invocations: list[float]  # each worker invocation's seconds
    fan_out_seconds: float  # all of them
    batch_seconds: float  # POST /v3/messages.batch of the same number of recipients
    ratio: float  # fan-out / batch
    members_per_second: float


def _members(tag: str, count: int) -> list[dict[str, object]]:
    return [{"address": f"m{n:05d}.{tag}@bench.example", "name": f"Member {n}"} for n in range(count)]


def fan_out(runtime: Runtime, api: ApiClient, sender: str, members: int) -> ListFanOut:
    tag = uuid.uuid4().hex[:6]
    _, created = api.post("/v3/lists", {"address": f"bench-{tag}@lists.example", "name": "Bench"}, expect=201)
    listed = _members(tag, members)
    for start in range(0, members, _BULK):
        api.post(f"/v3/lists/{created['id']}/members/bulk", {"members": listed[start : start + _BULK]})
    for member in listed[:SUPPRESSED]:
        api.post("/v3/suppressions", {"type": "bounces", "email": member["address"]}, expect=201)
    body = {
        "from": sender,
        "to": [created["address"]],
        "subject": "Hello {{ name }}",
        "text": "News for you.",
        "tags": ["bench"],
    }
    accept_seconds, accepted = api.post("/v3/messages", body, expect=202)
    account_id = runtime.dev["account_id"]
    service = wiring.list_send_service()
    invocations: list[float] = []
    while True:
        started = time.perf_counter()
        service.run(account_id, accepted["list_send_id"], receive_count=1)
        invocations.append(time.perf_counter() - started)
        job = wiring.list_send_jobs().get(account_id, accepted["list_send_id"])
        if job is None or job.status != "sending":
            break
    if job is None or job.status != "done" or job.suppressed != SUPPRESSED or job.accepted != members - SUPPRESSED:
        raise RuntimeError(f"the list send ended as {job!r}")
    batch = {
        "from": sender,
        "subject": "Hello",
        "text": "News for you.",
        "tags": ["bench"],
        "recipients": [{"to": f"b{n:05d}.{tag}@bench.example", "vars": {"name": f"B {n}"}} for n in range(members)],
    }
    batch_seconds, answer = api.post("/v3/messages.batch", batch, expect=202)
    if answer["accepted"] != members:
        raise RuntimeError(f"the batch accepted {answer['accepted']} of {members}")
    total = sum(invocations)
    return ListFanOut(
        members=members,
        accepted=job.accepted,
        suppressed=job.suppressed,
        accept_seconds=accept_seconds,
        invocations=invocations,
        fan_out_seconds=total,
        batch_seconds=batch_seconds,
        ratio=total / batch_seconds,
        members_per_second=members / total,
    )
