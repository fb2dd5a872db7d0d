"""k. Sending to a list, at two sizes: a list of N members (two of them suppressed) sent to through
its address, members/s at each size and the growth between them, against a batch of the same
recipients where the API takes one (at most 5,000).

With the runtime's pumps held (no dispatcher, no list worker running on its own), the list send is
accepted through the API (its 202 is one job write and one queue message), then the list worker's
step runs here, invocation by invocation, as the ListJobQueue's consumer would run it
(`ListSendService.run` as deployed: 32 pages of 500 members each, 8 side by side with a checkpoint
per group of 8, the rest queued again),
until the job is done. Each invocation is timed on its own: the first and the last of one list show
whether a page's cost grows with how far the send has gone (a Query that re-reads from the start, a
checkpoint item that grows, a table or queue whose calls cost what it holds).

Then a batch (POST /v3/messages.batch) of min(N, 5,000) fresh recipients goes through the API while
still held. Both sides render, screen (suppressions in batched reads), charge the quota, seal, queue
and store every message; the list side also reads its members (a Query a page) and writes its
checkpoints. The ratio compares costs per recipient: for N <= 5,000 it is the fan-out's time over
the batch's of the same N; above, the API has no batch of N, and the ratio is against the 5,000
batch's cost per recipient (the report says so).

The bench's call recorder keeps every AWS call of this process: the fan-out sums each worker run's
calls up (operations, items written by table, modeled AWS time) and then drops them, and drops
what the seeding and the batch recorded (its marks start again at 0: later sections mark anew).

Members are added through the API's bulk upsert (1,000 a call, the API's limit; ~4 ms a member
here, so 100,000 members take a few minutes, untimed): the fan-out then reads what the service
wrote, revisions and counts included, with no second way of writing members to keep in step.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass

from bench.api import ApiClient
from bench.cloud import LAMBDA_INVOKE_MS, critical_ms
from bench.recorder import Call, CallRecorder, call_mix
from devtools.local.runtime import Runtime
from postline import wiring
from postline.audit.domain import Actor
from postline.audit.service import new_audit_entry
from postline.lists.domain import MAX_BULK_MEMBERS
from postline.wiring import accounts as accounts_root
from postline.wiring import lists, sending, shared

SUPPRESSED = 2
MAX_BATCH = 5_000  # recipients of one POST /v3/messages.batch (the API's limit)


@dataclass(frozen=True)
class ListFanOut:
    members: int
    accepted: int
    suppressed: int
    seed_seconds: float  # adding the members through the bulk upsert (untimed in the comparison)
    accept_seconds: float  # the 202 of the send to the list
    invocations: list[float]  # each worker invocation's seconds
    fan_out_seconds: float  # all of them
    batch_recipients: int  # min(members, MAX_BATCH)
    batch_seconds: float  # POST /v3/messages.batch of batch_recipients recipients
    ratio: float  # the fan-out's seconds per member / the batch's seconds per recipient
    members_per_second: float
    # CPU seconds of the fan-out: this process (the worker and its threads; the pumps are held) and
    # the emulator. On a shared machine wall time swings with the load; CPU time shows the work.
    runtime_cpu_seconds: float
    emulator_cpu_seconds: float
    pages: int
    calls_per_page: dict[str, float]  # the worker's AWS calls, by operation
    writes_per_member: dict[str, float]  # items written (puts, updates, deletes), by table
    # The same calls with AWS's typical latencies (bench/cloud.py LATENCY_MS), the worker's own one
    # after another and each side-by-side phase as long as its busiest part, plus an invocation's
    # overhead per run: the fan-out's AWS time if the calls were all it waited for.
    modeled_aws_seconds: float

    @property
    def cpu_seconds(self) -> float:
        return self.runtime_cpu_seconds + self.emulator_cpu_seconds

    @property
    def same_size_batch(self) -> bool:
        return self.batch_recipients == self.members

    @property
    def batch_per_second(self) -> float:
        return self.batch_recipients / self.batch_seconds


def allow_overage(runtime: Runtime) -> None:
    """The development account is Professional: 50,000 emails a month, or up to 150,000 with
    overage. The API has no switch for overage (billing would set it), so the bench sets it on the
    account as the operator's service stores a change (validated, audited as staff): a 100,000-member
    list and its batches fit under the ceiling."""
    accounts = accounts_root.account_store()
    account_id = runtime.dev["account_id"]
    account = accounts.get_account(account_id)
    if account is None or account.overage_enabled:
        return
    details = "bench: overage on for the list fan-out"
    now = wiring.clock().now()
    audit = new_audit_entry(
        shared.ids(), Actor.staff(), account_id, "account.overage_enabled", account_id, details, now=now
    )
    accounts.update_account(account.model_copy(update={"overage_enabled": True}), audit)


def _members(tag: str, count: int) -> list[dict[str, object]]:
    return [{"address": f"m{n:06d}.{tag}@bench.example", "name": f"Member {n}"} for n in range(count)]


def fan_out(runtime: Runtime, api: ApiClient, recorder: CallRecorder, sender: str, members: int) -> ListFanOut:
    tag = uuid.uuid4().hex[:6]
    _, created = api.post("/v3/lists", {"address": f"bench-{tag}@lists.example", "name": "Bench"}, expect=201)
    listed = _members(tag, members)
    seeding = time.perf_counter()
    for start in range(0, members, MAX_BULK_MEMBERS):
        api.post(f"/v3/lists/{created['id']}/members/bulk", {"members": listed[start : start + MAX_BULK_MEMBERS]})
    seed_seconds = time.perf_counter() - seeding
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
    service = sending.list_send_service()
    invocations: list[float] = []
    here = threading.current_thread().name  # the worker's calls: this thread's and its parallel parts'
    mix: Counter[str] = Counter()
    written: Counter[str] = Counter()
    modeled = runtime_cpu = emulator_cpu = 0.0
    recorder.forget()  # the recorder keeps every call: 100,000 members' would take gigabytes (below)
    while True:
        cpu_before = time.process_time(), runtime.emulator_cpu_seconds() or 0.0
        started = time.perf_counter()
        service.run(account_id, accepted["list_send_id"], receive_count=1)
        invocations.append(time.perf_counter() - started)
        runtime_cpu += time.process_time() - cpu_before[0]
        emulator_cpu += (runtime.emulator_cpu_seconds() or 0.0) - cpu_before[1]
        # Each run's calls are summed up, then dropped: kept, a 100,000-member send's calls (every
        # item written, as parameters) held this process at 4.3 GB, and its garbage collections grew.
        calls = [call for call in recorder.since(0) if call.thread == here or call.thread.startswith(f"{here} > ")]
        mix.update(call_mix(calls))
        written.update(_writes(calls))
        modeled += critical_ms(calls)
        del calls
        recorder.forget()
        job = lists.list_send_jobs().get(account_id, accepted["list_send_id"])
        if job is None or job.status != "sending":
            break
    if job is None or job.status != "done" or job.suppressed != SUPPRESSED or job.accepted != members - SUPPRESSED:
        raise RuntimeError(f"the list send ended as {job!r}")
    recipients = min(members, MAX_BATCH)
    batch = {
        "from": sender,
        "subject": "Hello",
        "text": "News for you.",
        "tags": ["bench"],
        "recipients": [{"to": f"b{n:06d}.{tag}@bench.example", "vars": {"name": f"B {n}"}} for n in range(recipients)],
    }
    batch_seconds, answer = api.post("/v3/messages.batch", batch, expect=202)
    recorder.forget()
    if answer["accepted"] != recipients:
        raise RuntimeError(f"the batch accepted {answer['accepted']} of {recipients}")
    total = sum(invocations)
    return ListFanOut(
        members=members,
        accepted=job.accepted,
        suppressed=job.suppressed,
        seed_seconds=seed_seconds,
        accept_seconds=accept_seconds,
        invocations=invocations,
        fan_out_seconds=total,
        batch_recipients=recipients,
        batch_seconds=batch_seconds,
        ratio=(total / members) / (batch_seconds / recipients),
        members_per_second=members / total,
        runtime_cpu_seconds=runtime_cpu,
        emulator_cpu_seconds=emulator_cpu,
        pages=job.pages,
        calls_per_page={name: count / job.pages for name, count in mix.items()},
        writes_per_member={table: count / members for table, count in written.most_common()},
        modeled_aws_seconds=(modeled + LAMBDA_INVOKE_MS * len(invocations)) / 1000,
    )


def _writes(calls: list[Call]) -> Counter[str]:
    """Items written by the calls, by table (a BatchWriteItem's or a transaction's items each count)."""
    written: Counter[str] = Counter()

    def add(table: str, count: int = 1) -> None:
        written[table] += count

    for call in calls:
        if call.service != "dynamodb":
            continue
        if call.operation in ("PutItem", "UpdateItem", "DeleteItem"):
            add(call.params["TableName"])
        elif call.operation == "BatchWriteItem":
            for table, requests in call.params["RequestItems"].items():
                add(table, len(requests))
        elif call.operation == "TransactWriteItems":
            for item in call.params["TransactItems"]:
                for name, operation in item.items():
                    if name != "ConditionCheck":  # a check writes nothing
                        add(operation["TableName"])
    return written
