"""bench/listsend.py and its report (section k): items written by table, the modeled AWS time of
the worker's calls (its own calls add up, pages side by side last their busiest page), the growth
rows, and the ratio's wording when no batch of the list's size exists."""

from __future__ import annotations

from typing import Any

import pytest

from bench import cloud, listsend, report
from bench.listsend import ListFanOut
from bench.recorder import Call
from bench.stats import Growth

MAIN = "MainThread"


def _call(
    name: str, params: dict[str, Any] | None = None, *, thread: str = MAIN, serial: int = 1, at: float = 0.0
) -> Call:
    service, operation = name.split(".")
    return Call(thread, service, operation, params or {}, at, 0.01, {}, serial)


def _fan(members: int, batch: int, seconds: float) -> ListFanOut:
    return ListFanOut(
        members=members,
        accepted=members - 2,
        suppressed=2,
        seed_seconds=1.0,
        accept_seconds=0.05,
        invocations=[seconds / max(members // 2_000, 1)] * max(members // 2_000, 1),
        fan_out_seconds=seconds,
        batch_recipients=batch,
        batch_seconds=batch / 400,
        ratio=(seconds / members) / (1 / 400),
        members_per_second=members / seconds,
        runtime_cpu_seconds=seconds / 2,
        emulator_cpu_seconds=seconds / 2,
        pages=members // 500,
        calls_per_page={"dynamodb.Query": 1.0, "dynamodb.BatchWriteItem": 100.0},
        writes_per_member={"postline-local-EventsTable-ABC": 2.0, "postline-local-MessagesTable-DEF": 1.0},
        modeled_aws_seconds=members / 1_000,
    )


def test_writes_count_every_item_of_batches_and_transactions_by_table() -> None:
    calls = [
        _call("dynamodb.BatchWriteItem", {"RequestItems": {"E": [{"PutRequest": {}}] * 3, "M": [{"PutRequest": {}}]}}),
        _call(
            "dynamodb.TransactWriteItems",
            {"TransactItems": [{"Put": {"TableName": "M"}}, {"ConditionCheck": {"TableName": "J"}}]},
        ),
        _call("dynamodb.PutItem", {"TableName": "J"}),
        _call("dynamodb.BatchGetItem", {"RequestItems": {"M": {"Keys": []}}}),
        _call("sqs.SendMessageBatch", {"QueueUrl": "q"}),
    ]
    assert listsend._writes(calls) == {"E": 3, "M": 2, "J": 1}


def test_modeled_time_of_pages_side_by_side_is_the_busiest_page_with_its_own_nested_runs() -> None:
    """The worker's calls as bench/listsend.py models them (cloud.critical_ms): its own calls add up; a
    group of pages sent side by side lasts as long as its busiest page, a page as its own calls
    plus its chunks' side-by-side run (shared/parallel.py's nested thread names)."""
    query, write = cloud.call_ms(_call("dynamodb.Query")), cloud.call_ms(_call("dynamodb.BatchWriteItem"))
    page0, page1 = f"{MAIN} > part7_0", f"{MAIN} > part7_1"
    calls = [
        _call("dynamodb.Query", at=0.0),  # the group's member pages, one after another
        _call("dynamodb.Query", at=0.1),
        _call("dynamodb.Query", thread=page0, at=1.0),  # page 0: a read, then two chunks at once
        _call("dynamodb.BatchWriteItem", thread=f"{page0} > part8_0", at=1.1),
        _call("dynamodb.BatchWriteItem", thread=f"{page0} > part8_1", at=1.1),
        _call("dynamodb.BatchWriteItem", thread=f"{page1} > part9_0", at=1.0),  # page 1: one chunk
        _call("dynamodb.PutItem", at=2.0),  # the group's checkpoint
    ]
    put = cloud.call_ms(_call("dynamodb.PutItem"))
    assert cloud.critical_ms(calls) == pytest.approx(2 * query + (query + write) + put)
    assert cloud.critical_ms(calls[:1]) == pytest.approx(query)


def test_report_shows_both_sizes_their_growth_and_how_the_large_one_is_compared() -> None:
    small, large = _fan(2_000, 2_000, 5.0), _fan(20_000, 5_000, 50.0)
    lines = report._list_fan_out([small, large])
    text = "\n".join(lines)
    assert "2,000 members" in text and "20,000 members" in text
    assert "a batch of as many recipients" in text  # 2,000: the same size
    assert "no batch of 20,000 exists" in text and "a 5,000 batch took" in text
    assert "EventsTable 2, MessagesTable 1" in text
    assert "(the last two thirds / the first third: 1.00x)" in text  # 10 equal runs
    grown = Growth("k. list fan-out", "members", 2_000, 20_000, 5.0, 50.0)
    assert grown.linear
    assert not Growth("k. list fan-out", "members", 2_000, 20_000, 5.0, 60.1).linear
