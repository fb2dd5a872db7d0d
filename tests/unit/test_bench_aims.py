"""bench/report.py's aims: a run that missed one is listed (make bench then exits 1), one that met
them all lists nothing; and the first webhook's latency model in bench/cloud.py."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bench import cloud, report
from bench.__main__ import main
from bench.cloud_workloads import CloudModel
from bench.end_to_end import EndToEnd
from bench.events import ShardCase, ShardCost, ShardedPage, Webhooks
from bench.listsend import ListFanOut
from bench.run import BatchSend, Options, Results
from bench.stats import Latencies

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


AMD = "AMD EPYC 7B13"
BEFORE_ON_AMD = report.BATCH_CPU_BASELINES_MS["AMD EPYC"]


def _results(**changes: object) -> Results:
    empty = Results(Options(), True, None, [], None, [], [], [], [], None, None, [], None, None, [], None, [], 0, 0, {})
    return dataclasses.replace(empty, **changes)  # type: ignore[arg-type]


def _hooks(rate: float, p99: float) -> Webhooks:
    latency = Latencies(count=200, total=1.0, mean=0.02, p50=0.01, p99=p99)
    return Webhooks(events=200, rate=rate, delivered=200, latency=latency, bare=latency, ratio_p50=1, ratio_p99=1)


def _batch(cpu_ms: float) -> BatchSend:
    return BatchSend(5_000, 5_000, {}, 10.0, 9.0, 9.0, 1.1, {}, {}, 1.0,
                     runtime_cpu_per_recipient=cpu_ms / 2000, emulator_cpu_per_recipient=cpu_ms / 2000,
                     cpu_model=AMD)  # fmt: skip


def _whole(accept_seconds: float) -> EndToEnd:
    return EndToEnd(5_000, accept_seconds, 100.0, 50.0, {})


def test_a_run_within_every_aim_misses_none() -> None:
    within = _results(
        webhooks=[_hooks(20, 0.1), _hooks(200, 0.29)],
        batches=[_batch(BEFORE_ON_AMD / 2 * 0.9)],
        end_to_end=[_whole(14.0)],
    )
    assert report.missed(within) == []


def test_each_missed_aim_is_listed() -> None:
    missed = report.missed(
        _results(
            webhooks=[_hooks(20, 0.1), _hooks(200, 0.45)],
            batches=[_batch(BEFORE_ON_AMD * 0.8)],
            end_to_end=[_whole(29.0)],
        )
    )
    assert len(missed) == 3
    assert any(line.startswith("e. first webhook at 200 events/s: p99 450 ms") for line in missed)
    assert any(line.startswith("c. CPU per accepted recipient") for line in missed)
    assert any("accepted in 29.00 s with its pipeline running" in line for line in missed)


def test_the_cpu_aim_is_held_to_the_before_figure_of_its_kind_of_machine() -> None:
    xeon = dataclasses.replace(_batch(2.14), cpu_model="Intel(R) Xeon(R) Processor")
    assert report.missed(_results(batches=[xeon])) == []  # 0.47x of 4.57 ms on that kind
    assert len(report.missed(_results(batches=[_batch(2.14)]))) == 1  # 0.73x of 2.95 ms on an AMD EPYC
    unknown = dataclasses.replace(_batch(9.0), cpu_model="Some ARM core")
    assert report.missed(_results(batches=[unknown])) == []
    assert "the aim is not judged" in "\n".join(report._batch_cpu(unknown))


def test_make_bench_exits_1_when_an_aim_is_missed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("bench.__main__.run", lambda options, progress: _results(webhooks=[_hooks(20, 0.5)]))
    monkeypatch.setattr("bench.__main__.report.render", lambda results, host: "report")
    assert main(["--sections", "webhooks", "--json", "", "--log", str(tmp_path / "log")]) == 1
    monkeypatch.setattr("bench.__main__.run", lambda options, progress: _results(webhooks=[_hooks(20, 0.1)]))
    assert main(["--sections", "webhooks", "--json", "", "--log", str(tmp_path / "log")]) == 0


def test_the_webhook_model_reads_the_template_and_polls_an_idle_shard() -> None:
    mapping = cloud.StreamMapping.of(TEMPLATE)
    assert (mapping.batch_size, mapping.window_ms, mapping.parallelization) == (100, 0.0, 10)
    slow = cloud.webhook_latency(mapping, 2)  # every event finds the shard idle: it waits for the next poll
    assert slow.p99_ms > cloud.STREAM_IDLE_POLL_MS * 0.9
    assert slow.p99_ms < cloud.STREAM_IDLE_POLL_MS + slow.invocation_ms
    windowed = cloud.webhook_latency(dataclasses.replace(mapping, window_ms=1000), 20)
    assert windowed.p99_ms > 1000  # a batching window holds a batch's first record that long
    assert cloud.fan_out_calls(3) == {"dynamodb.PutItem": 6}  # no streak to clear: no UpdateItem


def test_the_webhook_section_reports_its_cold_start_and_cpu_per_event() -> None:
    from bench.report import _webhooks  # the section's lines

    latency = Latencies.of([0.02] * 200)
    hooks = Webhooks(
        events=200,
        rate=200.0,
        delivered=200,
        latency=latency,
        bare=latency,
        ratio_p50=1,
        ratio_p99=1,
        warmup=5,
        cold_seconds=0.412,
        runtime_cpu_per_event=0.0093,
        emulator_cpu_per_event=0.0095,
    )
    text = "\n".join(_webhooks(hooks))
    assert "5 untimed events" in text and "the first took 412 ms" in text
    assert "CPU per event 18.8 ms (runtime 9.3, emulator 9.5): at 200/s 3.76 cores' worth." in text
    assert "p99 803-966 ms before issue 33" in text  # the figure beside the aim's


def test_a_send_modeled_above_its_p50_aim_is_missed_and_its_line_says_so() -> None:
    usage = cloud.Usage()
    modeled = cloud.Modeled("x", 0.0, usage, {})
    model = CloudModel(
        send=modeled, send_calls={}, send_calls_expected={}, batch=modeled, batch_recipients=1, batch_calls={},
        batch_calls_expected={}, delivery=modeled, webhooks=modeled, events_page=None, events=0, per_million={},
        ses_per_million=100.0, send_ms=[40.0, 49.0, 60.0], send_sequential_ms=90.0, send_calls_ms=[38.0, 45.0, 55.0],
    )  # fmt: skip
    assert report.missed(_results(cloud=model)) == []  # p50 49 ms
    lines = "\n".join(report._send_latency(model))
    assert "p50 49 ms, p99 60 ms (aim p50 <= 50 ms: within)" in lines and "p50 45 ms" in lines and "90 ms" in lines

    slower = dataclasses.replace(model, send_ms=[48.0, 55.0, 60.0])
    assert report.missed(_results(cloud=slower)) == ["h. a send models at p50 55 ms in AWS (aim <= 50 ms)"]
    assert "(aim p50 <= 50 ms: ABOVE)" in "\n".join(report._send_latency(slower))


def test_the_ceiling_per_account_below_its_aim_is_missed() -> None:
    usage = cloud.Usage()
    modeled = cloud.Modeled("x", 0.0, usage, {})
    model = CloudModel(
        send=modeled, send_calls={}, send_calls_expected={}, batch=modeled, batch_recipients=1, batch_calls={},
        batch_calls_expected={}, delivery=modeled, webhooks=modeled, events_page=None, events=0, per_million={},
        ses_per_million=100.0,
        partition_units={"pk EVT#acct_1#2026-11-28": 5.0, "pk TAG#acct_1#2026-11-28#a": 5.0, "type_key x": 1.0},
    )  # fmt: skip
    assert report.missed(_results(cloud=model)) == []  # 64 shards x 1,000 / 5 x 80% = 10,240
    text = "\n".join(report._ceiling(model))
    assert "at 1 shard (every account's default) 200 messages/s; at 64 shards 12,800/s" in text
    assert "events partition 5, tag partition 5, by_type key 1" in text and "63 shards for 10,000/s" in text
    heavier = dataclasses.replace(model, partition_units={"pk EVT#acct_1#2026-11-28": 6.0})
    assert report.missed(_results(cloud=heavier)) == [
        "h. the ceiling per account models at 8,533 messages/s at 64 shards (aim >= 10,000)"
    ]


def _page(shards: int, total: int) -> ShardedPage:
    seconds = Latencies(count=1, total=0.1, mean=0.1, p50=0.1, p99=0.1)
    return ShardedPage(shards, seconds, 4, 7.5, 34.0, total, ("evt_1", "evt_2"))


def test_a_sharded_page_unlike_the_one_shard_page_is_missed() -> None:
    same = ShardCase("no filter", _page(1, 20_000), _page(64, 20_000))
    cost = ShardCost(20_000, 30, 64, 5, [same])
    assert report.missed(_results(events_shards=cost)) == []
    other = ShardCase("tag=weekly", _page(1, 6_664), _page(64, 6_663))
    assert report.missed(_results(events_shards=dataclasses.replace(cost, cases=[same, other]))) == [
        "f. tag=weekly: the first page or total at 64 shards differs from 1 shard's"
    ]
    assert "  yes" in "\n".join(report._shard_cost(cost))


def _fan(members: int, modeled_seconds: float) -> ListFanOut:
    return ListFanOut(
        members=members, accepted=members, suppressed=0, seed_seconds=1.0, accept_seconds=0.05, invocations=[1.0],
        fan_out_seconds=1.0, batch_recipients=5_000, batch_seconds=1.0, ratio=1.0, members_per_second=members,
        runtime_cpu_seconds=1.0, emulator_cpu_seconds=1.0, pages=members // 500, calls_per_page={},
        writes_per_member={}, modeled_aws_seconds=modeled_seconds,
    )  # fmt: skip


def test_a_large_list_modeled_below_its_members_a_second_aim_is_missed() -> None:
    small_and_slow, fast = _fan(2_000, 1.0), _fan(20_000, 3.7)
    assert report.missed(_results(list_fan_out=[small_and_slow, fast])) == []  # a small list: one run
    assert report.missed(_results(list_fan_out=[_fan(20_000, 5.0)])) == [
        "k. a list of 20,000 models at 4,000 members/s in AWS (aim >= 5,000)"
    ]
