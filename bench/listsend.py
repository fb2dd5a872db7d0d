"""k. Sending to a list, at two sizes: a list of N members (two of them suppressed) sent to through
its address, members/s at each size and the growth between them, against a batch of the same
recipients where the API takes one (at most 5,000).

With the runtime's pumps held (no dispatcher, no list worker running on its own), the list send is
accepted through the API (its 202 is one job write and one queue message), then the list worker's
invocations run here, one after another, as the ListJobQueue's consumer would run them: the job's
runs (`ListSendService.run` as deployed: a list of more than two pages has its pages' bounds handed
out to page tasks, 10 a SendMessageBatch; a shorter one is sent by the run, 8 pages side by side),
and each page task the runs queued (`run_page`, read back from the held queue), until the job is
done. Each invocation is timed on its own: the first and the last of one list show whether a page's
cost grows with how far the send has gone (a Query that re-reads from the start, a job item that
grows, a table or queue whose calls cost what it holds).

The model of one job in AWS (`modeled_aws_seconds`): each invocation takes LAMBDA_INVOKE_MS, its
calls' critical path at AWS's latencies (bench/cloud.py) and its own CPU as measured here (this
process's CPU time over the invocation, the pumps held), stretched by the worker's share of a vCPU
(Lambda gives 1,769 MB one vCPU; the worker has 1,024 MB). The job's runs follow one another; a
page task starts when the run's SendMessageBatch holding it returned and SQS handed it to Lambda
(a ReceiveMessage), as soon as one of the worker's PAGE_TASK_CONCURRENCY slots is free (the
template's MaximumConcurrency); the job ends when its last page task does. The calls alone
(`modeled_calls_seconds`) is what this figure was before the CPU was priced in.

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

import heapq
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.api import ApiClient
from bench.cloud import LAMBDA_INVOKE_MS, call_ms, critical_ms, function_memory
from bench.recorder import Call, CallRecorder, call_mix
from devtools.local.runtime import Runtime
from postline import wiring
from postline.audit.domain import Actor
from postline.audit.service import new_audit_entry
from postline.config import ListJobQueue
from postline.lists.domain import MAX_BULK_MEMBERS
from postline.lists.job_queue import ListJobMessage
from postline.lists.send_service import ListSendService
from postline.lists.sends import PageRange
from postline.wiring import accounts as accounts_root
from postline.wiring import lists, sending, shared

SUPPRESSED = 2
MAX_BATCH = 5_000  # recipients of one POST /v3/messages.batch (the API's limit)
TEMPLATE = Path(__file__).resolve().parents[1] / "infra" / "template.base.yaml"
FULL_VCPU_MB = 1_769  # Lambda's memory size with one whole vCPU; less gets that share of one
PICKUP_MS = 15.0  # a queued page task reaching Lambda: its poller's ReceiveMessage (LATENCY_MS)


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
    # One job in AWS (the module's text): its runs and page tasks, each its calls at AWS's latencies
    # and its own CPU, page tasks side by side up to the worker's concurrency.
    modeled_aws_seconds: float
    modeled_calls_seconds: float = 0.0  # the same without the CPU (the figure before it was priced)
    page_tasks: int = 0  # invocations of one page each (0: the runs sent the pages)
    concurrency: int = 1  # page tasks at once at most (the template's MaximumConcurrency)
    vcpu_share: float = 1.0  # of one vCPU, the worker's memory size gives it
    invocation_cpu: list[float] = field(default_factory=list)  # each invocation's CPU seconds here

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
    send_id = accepted["list_send_id"]
    service = sending.list_send_service()
    invocations: list[float] = []
    cpu_each: list[float] = []
    here = threading.current_thread().name  # the worker's calls: this thread's and its parallel parts'
    mix: Counter[str] = Counter()
    written: Counter[str] = Counter()
    runtime_cpu = emulator_cpu = 0.0
    concurrency, share = _worker_scaling()
    job_model = _JobModel(concurrency, share)
    recorder.forget()  # the recorder keeps every call: 100,000 members' would take gigabytes (below)

    def invoke(step: Callable[[], None]) -> list[Call]:
        """One invocation, timed, its CPU and calls kept (the calls summed up, then dropped)."""
        nonlocal runtime_cpu, emulator_cpu
        cpu_before = time.process_time(), runtime.emulator_cpu_seconds() or 0.0
        started = time.perf_counter()
        step()
        invocations.append(time.perf_counter() - started)
        cpu_each.append(time.process_time() - cpu_before[0])
        runtime_cpu += cpu_each[-1]
        emulator_cpu += (runtime.emulator_cpu_seconds() or 0.0) - cpu_before[1]
        # Each invocation's calls are summed up, then dropped: kept, a 100,000-member send's calls
        # (every item written, as parameters) held this process at 4.3 GB.
        calls = [call for call in recorder.since(0) if call.thread == here or call.thread.startswith(f"{here} > ")]
        mix.update(call_mix(calls))
        written.update(_writes(calls))
        recorder.forget()
        return calls

    tasks = 0
    while True:
        calls = invoke(lambda: service.run(account_id, send_id, receive_count=1))
        job_model.run(calls, cpu_each[-1])
        del calls
        queued = take_page_tasks(send_id)
        recorder.forget()  # taking them off the queue is the pollers' work, not an invocation's
        for page in queued:
            calls = invoke(_page_task(service, account_id, send_id, page))
            job_model.page_task(page.index, calls, cpu_each[-1])
            tasks += 1
            del calls
        job = lists.list_send_jobs().get(account_id, send_id)
        if job is None or job.status != "sending" or job.read_all:
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
        modeled_aws_seconds=job_model.seconds(with_cpu=True),
        modeled_calls_seconds=job_model.seconds(with_cpu=False),
        page_tasks=tasks,
        concurrency=concurrency,
        vcpu_share=share,
        invocation_cpu=cpu_each,
    )


def _page_task(service: ListSendService, account_id: str, send_id: str, page: PageRange) -> Callable[[], None]:
    return lambda: service.run_page(account_id, send_id, page, receive_count=1)


def _worker_scaling() -> tuple[int, float]:
    """The list worker's page tasks at once (its SQS event's MaximumConcurrency) and its share of a
    vCPU (its MemorySize over FULL_VCPU_MB, at most 1), from the template."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    worker = yaml.load(TEMPLATE.read_text(), Loader=Loader)["Resources"]["ListJobFunction"]["Properties"]  # noqa: S506
    scaling = worker["Events"]["Jobs"]["Properties"].get("ScalingConfig") or {}
    memory = function_memory(TEMPLATE).get("ListJobFunction", 128)
    return int(scaling.get("MaximumConcurrency", 1_000)), min(1.0, memory / FULL_VCPU_MB)


def take_page_tasks(send_id: str) -> list[PageRange]:
    """The page tasks the send's run queued (pumps held: they wait on the list queue), taken off it
    in page order; the queue's other messages are made visible again at once."""
    sqs, url = wiring.client("sqs"), wiring.settings(ListJobQueue).url
    pages: list[PageRange] = []
    while received := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages"):
        for message in received:
            body = ListJobMessage.model_validate_json(message["Body"])
            if body.kind == "send_page" and body.send_id == send_id and body.page is not None:
                pages.append(body.page)
                sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            else:  # the send's own message (its 202 queued it): visible again, as it was
                sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0)
        if len(received) < 10:
            break
    return sorted(pages, key=lambda page: page.index)


class _JobModel:
    """One list send's job in AWS, invocation by invocation (the module's text): its runs one after
    another, each page task from when its run's SendMessageBatch returned, `concurrency` at once."""

    def __init__(self, concurrency: int, vcpu_share: float) -> None:
        self._concurrency = concurrency
        self._share = vcpu_share
        self._runs_end = {True: 0.0, False: 0.0}  # by with_cpu: when the latest run ended (ms)
        self._queued: dict[int, dict[bool, float]] = {}  # page index -> when it reached Lambda (ms)
        self._tasks: list[tuple[int, dict[bool, float]]] = []  # (page index, its ms)

    def run(self, calls: list[Call], cpu_seconds: float) -> None:
        for with_cpu in (True, False):
            start = self._runs_end[with_cpu] + (PICKUP_MS if self._runs_end[with_cpu] else 0.0)
            cpu_ms = cpu_seconds * 1000 / self._share if with_cpu else 0.0
            elapsed, batches = LAMBDA_INVOKE_MS, []
            for n, call in enumerate(calls, 1):  # a run's calls are one after another (its own thread
                elapsed += call_ms(call)  # but for a short list's pages side by side: no batches then)
                if call.name == "sqs.SendMessageBatch":
                    batches.append((elapsed + cpu_ms * n / len(calls), call))
            ended = critical_ms(calls) + LAMBDA_INVOKE_MS + cpu_ms
            for at, call in batches:
                for entry in call.params.get("Entries", []):
                    index = ListJobMessage.model_validate_json(entry["MessageBody"]).page
                    if index is not None:
                        self._queued.setdefault(index.index, {})[with_cpu] = start + at + PICKUP_MS
            self._runs_end[with_cpu] = start + ended

    def page_task(self, index: int, calls: list[Call], cpu_seconds: float) -> None:
        taken = {
            with_cpu: LAMBDA_INVOKE_MS + critical_ms(calls) + (cpu_seconds * 1000 / self._share if with_cpu else 0.0)
            for with_cpu in (True, False)
        }
        self._tasks.append((index, taken))

    def seconds(self, *, with_cpu: bool) -> float:
        """When the job ended: its last run, or its last page task (each from when it was queued,
        as soon as a slot is free)."""
        slots = [0.0] * min(self._concurrency, max(len(self._tasks), 1))
        ended = self._runs_end[with_cpu]
        for index, taken in sorted(self._tasks, key=lambda task: self._queued[task[0]][with_cpu]):
            free = heapq.heappop(slots)
            start = max(free, self._queued[index][with_cpu])
            heapq.heappush(slots, start + taken[with_cpu])
            ended = max(ended, start + taken[with_cpu])
        return ended / 1000


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
