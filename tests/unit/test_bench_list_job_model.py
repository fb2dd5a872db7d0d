"""bench/listsend.py's model of one list send's job in AWS: its run, then its page tasks from when
the run's SendMessageBatch queued them, side by side up to the worker's concurrency, each with its
own CPU (stretched by the worker's share of a vCPU)."""

from __future__ import annotations

import pytest

from bench.cloud import LAMBDA_INVOKE_MS, LATENCY_MS
from bench.listsend import PICKUP_MS, _JobModel, _worker_scaling
from bench.recorder import Call
from postline.lists.job_queue import ListJobMessage
from postline.lists.sends import PageRange


def _call(operation: str, **params: object) -> Call:
    service = "sqs" if operation.startswith("Send") else "dynamodb"
    return Call(thread="bench", service=service, operation=operation, params=dict(params), started=0.0, seconds=0.0)


def _batch(indexes: range) -> Call:
    entries = [
        {"Id": str(n), "MessageBody": ListJobMessage(account_id="a", list_id="l", kind="send_page", send_id="s",
                                                     page=PageRange(index=n)).model_dump_json()}
        for n in indexes
    ]  # fmt: skip
    return _call("SendMessageBatch", Entries=entries)


QUERY, BATCH, UPDATE = (
    LATENCY_MS["dynamodb.Query"],
    LATENCY_MS["sqs.SendMessageBatch"],
    LATENCY_MS["dynamodb.UpdateItem"],
)


def test_page_tasks_start_when_queued_and_wait_for_a_free_slot_their_cpu_priced() -> None:
    model = _JobModel(concurrency=2, vcpu_share=0.5)
    model.run([_call("Query"), _call("UpdateItem"), _batch(range(3))], cpu_seconds=0.0)
    queued = LAMBDA_INVOKE_MS + QUERY + UPDATE + BATCH + PICKUP_MS
    for index in range(3):
        model.page_task(index, [_call("Query")], cpu_seconds=0.1)  # 200 ms at half a vCPU
    task = LAMBDA_INVOKE_MS + QUERY + 200
    assert model.seconds(with_cpu=True) == pytest.approx((queued + 2 * task) / 1000)  # the third waits a slot
    calls_only = LAMBDA_INVOKE_MS + QUERY
    assert model.seconds(with_cpu=False) == pytest.approx((queued + 2 * calls_only) / 1000)
    wide = _JobModel(concurrency=20, vcpu_share=0.5)
    wide.run([_call("Query"), _call("UpdateItem"), _batch(range(3))], cpu_seconds=0.0)
    for index in range(3):
        wide.page_task(index, [_call("Query")], cpu_seconds=0.1)
    assert wide.seconds(with_cpu=True) == pytest.approx((queued + task) / 1000)  # all three at once


def test_a_run_that_sends_its_pages_itself_is_the_job() -> None:
    model = _JobModel(concurrency=20, vcpu_share=1.0)
    model.run([_call("Query"), _call("UpdateItem")], cpu_seconds=0.5)
    assert model.seconds(with_cpu=True) == pytest.approx((LAMBDA_INVOKE_MS + QUERY + UPDATE + 500) / 1000)


def test_the_workers_concurrency_and_vcpu_share_come_from_the_template() -> None:
    concurrency, share = _worker_scaling()
    assert concurrency == 20 and share == pytest.approx(1024 / 1769)
