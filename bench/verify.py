"""k. Verify: bulk verification jobs through the API and the bulk worker, against a local DNS server.

A runtime of its own (the section's DNS server is its resolver; `VerifySmtpProbe=off`, since a
Lambda cannot open port 25 and the SMTP probe belongs to the relay task; no RDAP registry, so no
network) takes the addresses as one job: a CSV file (a header and an address a row) PUT to the
job's presigned upload URL, spread over `domains` domains, each with an MX whose host has an
address. The worker is the deployed one (functions/workers/bulk_verification.py), run by the
runtime's queue pump: it reads the file as a stream into chunks, then checks each address
(syntax, DNS and the domain's facts through the per-process caches, lists, the chunk's activity
in one read) and records the results 25 to a transaction with their credits.

Measured: addresses/s from the POST (the upload and the poll that queues the file included) until
the job is `completed` (its signed result file written); the DNS queries the server saw (MX
queries must be one per distinct domain, not one per address); the process's peak resident
memory above where it started (the worker runs in this process), sampled every 50 ms; and the
credits charged (one per distinct address).

Single checks first, in the same runtime: `POST /v3/validate` one address at a time, at two sizes
(e.g. 50 and 500 checks, each address at its own domain of the same set, so every check asks DNS:
the route keeps no DNS cache between calls), each timed from the client. After each check the DNS
questions the server saw for it (names and types, in order) are asked again straight from this
process with the same resolver settings (dnspython at the same server): the bare cost of the
lookups the check made. Reported: the API's p50/p99, the bare DNS p50/p99, their ratios, and the
growth between the sizes. Every 100 checks the clock moves a minute (untimed): the route takes 100
calls a minute per account.

No plan has enough credits for 100,000 checks in a month: the section lowers the account's month
count by the number of addresses (and single checks) first (the counters table, as the operator's
tooling would).
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import dns.exception
import dns.resolver
import requests

from bench.api import ApiClient
from bench.replay import Emulator
from bench.stats import Latencies, ratio
from devtools.local.dns_server import MX, A, DnsServer
from devtools.local.runtime import Runtime
from postline.shared.resolver import dns_resolver

_VALIDATE_PER_MINUTE = 100  # POST /v3/validate's limit per account (the clock moves a minute after as many)

_SAMPLE_SECONDS = 0.05


@dataclass(frozen=True)
class SingleChecks:
    """`checks` POST /v3/validate calls, one after another, against the bare DNS lookups each made."""

    checks: int
    api: Latencies
    dns: Latencies  # per check: its DNS questions asked again, straight at the same server
    dns_queries_per_check: float
    ratio_p50: float
    ratio_p99: float
    statuses: dict[str, int]


@dataclass(frozen=True)
class BulkVerify:
    addresses: int
    domains: int
    jobs: int
    seconds: float
    per_second: float
    mx_queries: int
    dns_queries: int
    distinct_mx_names: int
    credits_charged: int
    rss_start_mb: float
    rss_peak_mb: float
    summary: dict[str, int]
    singles: tuple[SingleChecks, ...] = ()  # smaller first


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class _PeakRss:
    """Samples this process's resident memory in a thread while the block runs."""

    def __init__(self) -> None:
        self.start = self.peak = _rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(_SAMPLE_SECONDS):
            self.peak = max(self.peak, _rss_mb())


def _bare(resolver: dns.resolver.Resolver, questions: list[tuple[str, str]]) -> float:
    """Seconds to ask these (name, type) questions one after another, as the check did."""
    started = time.perf_counter()
    for name, kind in questions:
        with contextlib.suppress(dns.exception.DNSException):  # NXDOMAIN and the like: answered all the same
            resolver.resolve(name, kind, raise_on_no_answer=False)
    return time.perf_counter() - started


def single_checks(
    runtime: Runtime, api: ApiClient, dns_server: DnsServer, names: list[str], checks: int
) -> SingleChecks:
    """`checks` single checks, each followed by the bare DNS lookups it made (see the module)."""
    resolver = dns_resolver(dns_server.address, 5.0)
    api_seconds: list[float] = []
    dns_seconds: list[float] = []
    asked = 0
    statuses: dict[str, int] = {}
    for n in range(checks):
        if n % _VALIDATE_PER_MINUTE == 0:
            runtime.advance(60)  # a fresh window of the route (untimed)
        before = len(dns_server.queries)
        seconds, result = api.post("/v3/validate", {"email": f"single{n}@{names[n % len(names)]}"})
        questions = [(query.name, query.type) for query in dns_server.queries[before:]]
        api_seconds.append(seconds)
        dns_seconds.append(_bare(resolver, questions))
        asked += len(questions)
        statuses[result["status"]] = statuses.get(result["status"], 0) + 1
    api_latencies, dns_latencies = Latencies.of(api_seconds), Latencies.of(dns_seconds)
    return SingleChecks(
        checks=checks,
        api=api_latencies,
        dns=dns_latencies,
        dns_queries_per_check=asked / checks,
        ratio_p50=ratio(api_latencies.p50, dns_latencies.p50),
        ratio_p99=ratio(api_latencies.p99, dns_latencies.p99),
        statuses=statuses,
    )


def run(template: Path, addresses: int, domains: int, timeout: float, single_sizes: tuple[int, ...] = ()) -> BulkVerify:
    names = [f"v{n:04d}.bench.test" for n in range(domains)]
    emails = [f"user{n}@{names[n % domains]}" for n in range(addresses)]
    with DnsServer() as server, tempfile.TemporaryDirectory(prefix="postline-bench-verify-") as state:
        for name in names:
            server.add(name, MX(10, f"mx.{name}"))
            server.add(f"mx.{name}", A("127.0.0.1"))
        parameters = {"DnsResolver": server.address, "VerifySmtpProbe": "off", "RdapBaseUrl": ""}
        with Runtime(template, Path(state), log_level="ERROR", parameters=parameters) as runtime:
            api = ApiClient(runtime.base_url, runtime.dev["keys"]["live"])
            db = Emulator(runtime.endpoint_url).client("dynamodb")
            month = runtime.clock.now().strftime("%Y-%m")
            db.update_item(
                TableName=runtime.env["COUNTERS_TABLE"],
                Key={"pk": {"S": f"USAGE#{runtime.dev['account_id']}"}, "sk": {"S": f"M#{month}"}},
                UpdateExpression="SET verify = :room",
                ExpressionAttributeValues={":room": {"N": str(-(addresses + sum(single_sizes)))}},
            )
            singles = tuple(single_checks(runtime, api, server, names, size) for size in sorted(single_sizes))
            runtime.advance(60)  # the bulk route's window is its own, but start it fresh too
            before = len(server.queries)
            with _PeakRss() as memory:
                started = time.perf_counter()
                _, accepted = api.post("/v3/validate/bulk", {"filename": "bench.csv"}, expect=202)
                text = "email\n" + "".join(f"{email}\n" for email in emails)
                put = requests.put(
                    accepted["upload_url"], data=text.encode(), headers={"Content-Type": "text/csv"}, timeout=300
                )
                put.raise_for_status()
                _, found = api.get(f"/v3/validate/bulk/{accepted['job_id']}")  # the first poll queues the file
                if found["status"] != "pending":
                    raise RuntimeError(f"the uploaded file was not found: {found}")
                job_ids = [accepted["job_id"]]
                busy = runtime.drain(timeout)
                seconds = time.perf_counter() - started
            if busy:
                raise RuntimeError(f"the jobs did not finish within {timeout:.0f} s: {busy}")
            summary: dict[str, int] = {}
            for job_id in job_ids:
                _, job = api.get(f"/v3/validate/bulk/{job_id}")
                if job["status"] != "completed":
                    raise RuntimeError(f"job {job_id} is {job['status']}: {job.get('error_message')}")
                for status, count in job["summary"].items():
                    summary[status] = summary.get(status, 0) + count
            _, usage = api.get("/v3/usage")
            queries = server.queries[before:]
            mx = [query.name for query in queries if query.type == "MX"]
            return BulkVerify(
                addresses=addresses,
                domains=domains,
                jobs=len(job_ids),
                seconds=seconds,
                per_second=addresses / seconds,
                mx_queries=len(mx),
                dns_queries=len(queries),
                distinct_mx_names=len(set(mx)),
                credits_charged=usage["verify_credits"]["used"] + addresses,  # the singles' credits cancel out
                rss_start_mb=memory.start,
                rss_peak_mb=memory.peak,
                summary=summary,
                singles=singles,
            )
