"""h. The operations the cloud model prices, recorded in the embedded runtime (model: bench/cloud.py).

Each workload is recorded at the boto3 boundary of this process, where the embedded runtime's
functions and pumps make their AWS calls: a send, a batch, one live message from its send to its
delivery with three webhook deliveries, the same for a burst of messages (whose events the stream
consumers' batches share, as one account's steady sending does), and a first page of GET /v3/events
with its total_count (unfiltered, and filtered by a common type and by a rarer one: TYPE_PAGES).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench import cloud, queues
from bench.api import ApiClient
from bench.events import Receiver
from bench.pipeline import held, skip_outbox
from bench.receipt import receipt
from bench.recorder import Call, CallRecorder, call_mix, request_calls
from devtools.local.runtime import Runtime
from postline.config import SendQueue
from postline.sending.domain import Content
from postline.sending.store import body_key
from postline.sending.vault import KmsVault
from postline.shared.dynamo import to_value

_DELIVERY_TIMEOUT_SECONDS = 120.0
# The events query's own pools (events/store.py's partition counts and reads, count_store.py's
# counter reads): their calls are the request's too, made while it waits for them.
_QUERY_POOLS = ("events-query", "event-counts")
_QUERY_WORKERS = 8  # events/store.py _PARALLEL
_PROBES = 20  # sends recorded, each modeled: their p50 and p99 (the usual one's calls are priced)
_WEBHOOKS = 3
# Messages sent back to back for the burst: within the roll-up's and the activity consumer's 1 s
# batching window, so one batch counts them all (one account's events share a stream lane).
_BURST = 10
SES_PER_MILLION = cloud.PRICES["ses.message"] * 1e6
# The type-filtered first pages modeled beside the unfiltered one: `delivered`, a common type (a
# quarter of the seeded events: bench/seed.py), read from the day partitions with a type filter
# since by_type went sparse, and `bounced`, a rarer one (1 in 16), read from the by_type index;
# over the account's whole window, whose first day (the sends and the batch recorded above, before
# the counters' first complete day) is counted from the events, and over its last 29 days, which
# the counters answer but for the open edges.
TYPE_PAGES = ("delivered", "bounced")
RECENT_DAYS = 29


@dataclass(frozen=True)
class Recorded:
    send: list[Call]
    batch: list[Call]
    delivered: list[Call]  # a live message from its send until its webhooks were delivered and all settled
    webhook_bodies: list[bytes]
    probes: list[list[Call]] = field(default_factory=list)  # every send recorded (`send` is the usual one)
    burst: list[Call] = field(default_factory=list)  # _BURST live messages sent together, until all settled


@dataclass(frozen=True)
class CloudModel:
    send: cloud.Modeled
    send_calls: dict[str, int]  # as recorded
    send_calls_expected: dict[str, int]  # as cloud.SEND_CALLS says
    batch: cloud.Modeled
    batch_recipients: int
    batch_calls: dict[str, int]
    batch_calls_expected: dict[str, int]
    delivery: cloud.Modeled  # one live message after its acceptance: dispatch, SES, its events' fan-out
    webhooks: cloud.Modeled  # the three webhook deliveries of its `delivered` event
    events_page: cloud.Modeled | None
    events: int  # events of the account the page was read from
    per_million: dict[str, float]  # scenario -> dollars per 1,000,000 emails, SES included
    ses_per_million: float
    # The first webhook attempt's latency in AWS, one account's events at each rate (cloud.webhook_latency),
    # from the fan-out's stream mapping in the template; and the fan-out's recorded calls for three
    # deliveries against those the latency model assumes.
    stream_mapping: cloud.StreamMapping | None = None
    webhook_latency: list[cloud.WebhookLatency] = field(default_factory=list)
    fan_out_calls: dict[str, int] = field(default_factory=dict)
    fan_out_calls_expected: dict[str, int] = field(default_factory=dict)
    # Each recorded send's modeled time (its critical path, as the code ran its calls), and the usual
    # send's time were its calls made one after another, as before they went side by side.
    send_ms: list[float] = field(default_factory=list)
    send_sequential_ms: float = 0.0
    send_calls_ms: list[float] = field(default_factory=list)  # the same without the measured compute
    # Write units the live message put on each key of the events table (cloud.partition_write_units):
    # the busiest of them sets the ceiling per account, at one shard and at the most.
    partition_units: dict[str, float] = field(default_factory=dict)
    # DynamoDB write units by item kind (cloud.write_units_by_item): a send's, the batch's (all its
    # recipients), a live message's delivery's and its three webhook deliveries'.
    items: dict[str, dict[str, cloud.ItemUnits]] = field(default_factory=dict)
    # The burst's deliveries and webhook deliveries, all its messages together (divide by `burst`).
    burst: int = 0
    burst_delivery: cloud.Modeled | None = None
    # The first pages filtered by type (TYPE_PAGES), modeled as events_page is.
    type_pages: list[cloud.Modeled] = field(default_factory=list)
    # The message body item at bench/run.py's body and at the receipt the sends carry (body_sizes).
    bodies: list[BodySize] = field(default_factory=list)

    @property
    def hottest_key(self) -> tuple[str, float]:
        return max(self.partition_units.items(), key=lambda kv: kv[1], default=("-", 0.0))

    @property
    def send_p50_ms(self) -> float:
        return _percentile(self.send_ms, 0.50)

    @property
    def send_p99_ms(self) -> float:
        return _percentile(self.send_ms, 0.99)

    @property
    def send_calls_p50_ms(self) -> float:
        return _percentile(self.send_calls_ms, 0.50)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(len(ordered) * share) - 1))] if ordered else 0.0


@dataclass(frozen=True)
class BodySize:
    """A message body item (sending/store.py) for one content: its JSON, and the item as the vault
    stored it before (base64 Strings of the bare JSON) and now (compressed, Binary), with write units."""

    label: str
    json_bytes: int
    before_bytes: int
    after_bytes: int

    @property
    def before_units(self) -> int:
        return cloud.write_units(self.before_bytes)

    @property
    def after_units(self) -> int:
        return cloud.write_units(self.after_bytes)


_WRAPPED_KEK_BYTES = 184  # KMS GenerateDataKey's CiphertextBlob for a symmetric key


class _Kms:
    def generate_data_key(self, **_: Any) -> dict[str, bytes]:
        return {"Plaintext": bytes(32), "CiphertextBlob": bytes(_WRAPPED_KEK_BYTES)}


def body_size(label: str, content: Content) -> BodySize:
    """The body item's size for `content`, sealed by today's vault and as the vault before sealed it
    (base64 of the nonce, the ciphertext and its tag; of the wrapped KEK and DEK)."""
    plain = len(content.model_dump_json(exclude_defaults=True).encode())
    (record,) = KmsVault(_Kms(), None, "key", "bucket").seal([("msg_0123456789abcdefghijklmn", content)])
    keys = {**body_key("msg_0123456789abcdefghijklmn"), "expires_at": {"N": "1800000000"}}
    before = {
        "kek": "k" * math.ceil(_WRAPPED_KEK_BYTES / 3) * 4,
        "dek": "d" * 80,
        "body": "b" * (math.ceil((12 + plain + 16) / 3) * 4),
    }
    return BodySize(
        label,
        plain,
        cloud.item_bytes({**keys, "sealed": to_value(before)}),
        cloud.item_bytes({**keys, "sealed": to_value(record)}),
    )


def body_sizes(html: str, text: str) -> list[BodySize]:
    """The body item at bench/run.py's body (`html`, `text`) and at the cloud model's receipt."""
    receipt_html, receipt_text = receipt(0)
    return [
        body_size(f"bench/run.py's body ({len(html):,} B HTML + {len(text):,} B text)", Content(html=html, text=text)),
        body_size(
            f"a receipt, the cloud model's ones ({len(receipt_html):,} B HTML + {len(receipt_text):,} B text)",
            Content(html=receipt_html, text=receipt_text),
        ),
    ]


def receipt_sends(send_body: Callable[[int], dict[str, Any]]) -> Callable[[int], dict[str, Any]]:
    """`send_body` (or a batch's body) with a realistic receipt (bench/receipt.py) for its HTML and
    text: the cloud model's sends and batch only (the other sections keep bench/run.py's body,
    comparable with their earlier runs)."""

    def body(index: int) -> dict[str, Any]:
        html, text = receipt(index)
        return {**send_body(index), "html": html, "text": text}

    return body


def record(
    runtime: Runtime,
    api: ApiClient,
    sqs: Any,
    recorder: CallRecorder,
    send_body: Callable[[int], dict[str, Any]],
    batch_body: Callable[[int], dict[str, Any]],
    batch: int,
    progress: Callable[[str], None],
) -> Recorded:
    send_body, batch_body = receipt_sends(send_body), receipt_sends(batch_body)
    with held(runtime):
        progress("h. recording a send and a batch for the cloud model")
        api.send(send_body(_PROBES + 2))  # untimed: the instance's first send (imports, cached keys) is a cold start
        probes = []
        for index in range(_PROBES):
            mark = recorder.mark()
            api.send(send_body(index))
            probes.append(request_calls(recorder.since(mark)))
        common = Counter(tuple(c.name for c in calls) for calls in probes).most_common(1)[0][0]
        send = next(calls for calls in probes if tuple(c.name for c in calls) == common)
        mark = recorder.mark()
        api.post("/v3/messages.batch", batch_body(batch), expect=202)
        batch_calls = request_calls(recorder.since(mark))
        skip_outbox(runtime)  # those are not delivered
        queues.empty(sqs, SendQueue.from_env(runtime.env).url)
    runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
    progress(f"h. recording one live message from its send to {_WEBHOOKS} webhook deliveries")
    with Receiver() as receiver:
        endpoints = []
        for index in range(_WEBHOOKS):
            body = {"url": f"{receiver.url}?endpoint={index}", "events": ["delivered"]}
            endpoints.append(api.post("/v3/webhooks", body, expect=201)[1]["id"])
        runtime.drain(_DELIVERY_TIMEOUT_SECONDS)
        # An untimed message first: a fresh runtime's first webhook mints the platform's signing key
        # and its fan-out instances open it, once per deployment and per instance, not per message.
        _deliver(runtime, api, receiver, [send_body(_PROBES)])
        receiver.bodies.clear()
        mark = recorder.mark()
        _deliver(runtime, api, receiver, [send_body(_PROBES + 1)])
        delivered = recorder.since(mark)
        bodies = list(receiver.bodies)
        progress(f"h. recording a burst of {_BURST} live messages")
        mark = recorder.mark()
        _deliver(runtime, api, receiver, [send_body(_PROBES + 3 + index) for index in range(_BURST)])
        burst = recorder.since(mark)
    for endpoint in endpoints:
        api.delete(f"/v3/webhooks/{endpoint}")
    return Recorded(send, batch_calls, delivered, bodies, probes, burst)


def _deliver(runtime: Runtime, api: ApiClient, receiver: Receiver, bodies: list[dict[str, Any]]) -> None:
    """Sends `bodies` one after another and waits for their webhook deliveries and for the messages'
    other events to settle."""
    wanted = len(receiver.bodies) + len(bodies) * _WEBHOOKS
    for body in bodies:
        api.send(body)
    deadline = time.monotonic() + _DELIVERY_TIMEOUT_SECONDS
    while len(receiver.bodies) < wanted and time.monotonic() < deadline:
        time.sleep(0.05)
    runtime.drain(_DELIVERY_TIMEOUT_SECONDS)  # the messages' other events reach the fan-out too
    if len(receiver.bodies) < wanted:
        raise RuntimeError(f"{len(receiver.bodies)} of {wanted} webhook deliveries arrived")


def events_page(api: ApiClient, recorder: CallRecorder, params: dict[str, str] | None = None) -> tuple[list[Call], int]:
    """A first page of 25 with its total_count (`params`: its filters), after one untimed call (warm
    caches); its calls and status (503 query_timeout when counting ran out of the time budget: its
    calls up to then cost too)."""
    query = {"limit": "25", **(params or {})}
    api.get_status("/v3/events", query)
    mark = recorder.mark()
    _, status, _ = api.get_status("/v3/events", query)
    calls = recorder.since(mark)
    return [c for c in calls if c.in_request or c.thread.startswith(_QUERY_POOLS)], status


def type_pages(api: ApiClient, recorder: CallRecorder, now: datetime) -> dict[str, tuple[list[Call], int]]:
    """The first pages filtered by each of TYPE_PAGES, over the whole window and its last RECENT_DAYS
    (and the unfiltered one over those), by their filters as the report names them."""
    since = (now - timedelta(days=RECENT_DAYS)).isoformat()
    pages = {f"event={kind}, ": events_page(api, recorder, {"event": kind}) for kind in TYPE_PAGES}
    recent = f"last {RECENT_DAYS} days, "
    pages[recent] = events_page(api, recorder, {"since": since})
    for kind in TYPE_PAGES:
        pages[f"event={kind}, {recent}"] = events_page(api, recorder, {"event": kind, "since": since})
    return pages


def build(
    template: Path,
    recorded: Recorded,
    batch: int,
    page: tuple[list[Call], int] | None,
    events: int,
    batch_tags: int,
    webhook_rates: tuple[float, ...] = (20.0, 200.0),
    typed: dict[str, tuple[list[Call], int]] | None = None,
    today_body: tuple[str, str] | None = None,  # bench/run.py's (html, text), for the body item's sizes
) -> CloudModel:
    memory = cloud.function_memory(template)
    indexes = cloud.table_indexes(template)
    send, batch_calls, bodies = recorded.send, recorded.batch, recorded.webhook_bodies
    after, webhook_calls = _delivery_calls(recorded.delivered, memory)
    webhooks = cloud.model("three webhook deliveries", webhook_calls, memory, indexes=indexes)
    webhooks.usage.count("nat.gigabyte", sum(map(len, bodies)) / 1e9)  # the POSTs leave through the NAT gateway
    modeled_send = cloud.model("POST /v3/messages", send, memory, api_requests=1, indexes=indexes)
    requests = [_request(probe, memory) for probe in recorded.probes or [send]]
    usual = _request(send, memory)
    modeled_batch = cloud.model(
        f"POST /v3/messages.batch ({batch:,})", batch_calls, memory, api_requests=1, indexes=indexes
    )
    delivery = cloud.model("a live message's delivery", after, memory, ses_messages=1, indexes=indexes)
    per_message_batch = modeled_batch.dollars / batch
    per_million = {
        "single sends": (modeled_send.dollars + delivery.dollars) * 1e6,
        f"batches of {batch:,}": (per_message_batch + delivery.dollars) * 1e6,
        "single sends, 3 webhook deliveries each": (modeled_send.dollars + delivery.dollars + webhooks.dollars) * 1e6,
    }
    burst_delivery = None
    if recorded.burst:
        burst_after, burst_webhooks = _delivery_calls(recorded.burst, memory)
        burst_delivery = cloud.model(
            f"a burst of {_BURST} live messages' deliveries", burst_after, memory, ses_messages=_BURST, indexes=indexes
        )
        hooks = cloud.model("their webhook deliveries", burst_webhooks, memory, indexes=indexes)
        hooks.usage.count("nat.gigabyte", _BURST * sum(map(len, bodies)) / 1e9)
        per_million[f"the same, {_BURST} sent together"] = (
            modeled_send.dollars + (burst_delivery.dollars + hooks.dollars) / _BURST
        ) * 1e6
    return CloudModel(
        bodies=body_sizes(*today_body) if today_body else [],
        send=modeled_send,
        send_calls=call_mix(send),
        send_calls_expected={name: count for name, (count, _) in cloud.SEND_CALLS.items()},
        batch=modeled_batch,
        batch_recipients=batch,
        batch_calls=call_mix(batch_calls),
        batch_calls_expected=cloud.batch_calls(batch, tags=batch_tags),
        delivery=delivery,
        webhooks=webhooks,
        events_page=_page(_page_name(page[1]), page[0], memory, indexes) if page else None,
        events=events,
        per_million=per_million,
        ses_per_million=SES_PER_MILLION,
        stream_mapping=(mapping := cloud.StreamMapping.of(template)),
        webhook_latency=[cloud.webhook_latency(mapping, rate) for rate in webhook_rates],
        fan_out_calls=call_mix(
            [
                c
                for c in webhook_calls
                if cloud.function_of(c.thread, memory) == cloud.FAN_OUT_FUNCTION
                and c.name not in cloud.FAN_OUT_PER_INVOCATION
            ]
        ),
        fan_out_calls_expected=cloud.fan_out_calls(_WEBHOOKS),
        send_ms=[cloud.request_ms(calls, compute_ms=cloud.compute_ms(calls)) for calls in requests],
        send_sequential_ms=cloud.sequential_ms(usual, compute_ms=cloud.compute_ms(usual)),
        send_calls_ms=[cloud.request_ms(calls) for calls in requests],
        partition_units=cloud.partition_write_units(recorded.delivered),
        items={
            "send": cloud.write_units_by_item(send, indexes),
            "batch": cloud.write_units_by_item(batch_calls, indexes),
            "delivery": cloud.write_units_by_item(after, indexes),
            "webhooks": cloud.write_units_by_item(webhook_calls, indexes),
            **({"burst": cloud.write_units_by_item(burst_after, indexes)} if recorded.burst else {}),
        },
        burst=_BURST if recorded.burst else 0,
        burst_delivery=burst_delivery,
        type_pages=[
            _page(_page_name(status, filters), calls, memory, indexes)
            for filters, (calls, status) in (typed or {}).items()
        ],
    )


def _delivery_calls(calls: list[Call], memory: dict[str, int]) -> tuple[list[Call], list[Call]]:
    """A recording's billed calls after the send's request (its delivery), and its webhook deliveries'."""
    billed = [c for c in calls if cloud.function_of(c.thread, memory) or c.thread.startswith("pump ")]
    webhooks = [c for c in billed if "Webhook" in (cloud.function_of(c.thread, memory) or "")]
    after = [c for c in billed if not c.in_request and "Webhook" not in (cloud.function_of(c.thread, memory) or "")]
    return after, webhooks


def _page(
    name: str, calls: list[Call], memory: dict[str, int], indexes: dict[str, tuple[cloud.Index, ...]]
) -> cloud.Modeled:
    """An events page modeled as a request, its pools' calls priced with it and timed while it waits
    for them: _QUERY_WORKERS at a time (cloud.pooled_ms: the counter reads' pool counted one after another)."""
    modeled = cloud.model(name, calls, memory, api_requests=1, indexes=indexes)
    pooled = [c for c in calls if c.thread.startswith(_QUERY_POOLS)]
    waited = cloud.pooled_ms(pooled, workers=_QUERY_WORKERS, pool_prefix=_QUERY_POOLS[0]) if pooled else 0.0
    return dataclasses.replace(modeled, milliseconds=modeled.milliseconds + waited)


def _request(calls: list[Call], memory: dict[str, int]) -> list[Call]:
    """A request's calls made in its function's invocation (as cloud.model times one)."""
    return [call for group in cloud.invocations(calls, memory).values() for call in group]


def _page_name(status: int, filters: str = "") -> str:
    answer = "" if status == 200 else f", answered {status}"
    return f"GET /v3/events ({filters}first page, total_count{answer})"
