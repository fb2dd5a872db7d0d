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

No plan has enough credits for 100,000 checks in a month: the section lowers the account's month
count by the number of addresses first (the counters table, as the operator's tooling would).
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from bench.api import ApiClient
from bench.replay import Emulator
from devtools.local.dns_server import MX, A, DnsServer
from devtools.local.runtime import Runtime

_SAMPLE_SECONDS = 0.05


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


def run(template: Path, addresses: int, domains: int, timeout: float) -> BulkVerify:
    names = [f"v{n:04d}.bench.test" for n in range(domains)]
    emails = [f"user{n}@{names[n % domains]}" for n in range(addresses)]
    with DnsServer() as dns, tempfile.TemporaryDirectory(prefix="postline-bench-verify-") as state:
        for name in names:
            dns.add(name, MX(10, f"mx.{name}"))
            dns.add(f"mx.{name}", A("127.0.0.1"))
        parameters = {"DnsResolver": dns.address, "VerifySmtpProbe": "off", "RdapBaseUrl": ""}
        with Runtime(template, Path(state), log_level="ERROR", parameters=parameters) as runtime:
            api = ApiClient(runtime.base_url, runtime.dev["keys"]["live"])
            db = Emulator(runtime.endpoint_url).client("dynamodb")
            month = runtime.clock.now().strftime("%Y-%m")
            db.update_item(
                TableName=runtime.env["COUNTERS_TABLE"],
                Key={"pk": {"S": f"USAGE#{runtime.dev['account_id']}"}, "sk": {"S": f"M#{month}"}},
                UpdateExpression="SET verify = :room",
                ExpressionAttributeValues={":room": {"N": str(-addresses)}},
            )
            before = len(dns.queries)
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
            queries = dns.queries[before:]
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
                credits_charged=usage["verify_credits"]["used"] + addresses,
                rss_start_mb=memory.start,
                rss_peak_mb=memory.peak,
                summary=summary,
            )
