"""python -m bench [--sends N] [--clients N] [--concurrent-sends N] [--batch N] [--small-batch N] [--burst N]
                  [--webhook-events N] [--webhook-rates R,R] [--events N] [--query-repeats N]
                  [--export-rows N] [--verify-singles N,N]
                  [--list-members N] [--small-list-members N] [--sections a,b,...] [--json PATH] [--log PATH]

Runs the benchmark (see bench/__init__.py) and prints its report; also writes it as JSON
(.local/bench.json unless --json is empty). Exits 1, listing them, when the run missed any aim it
measured (bench/report.py `missed`: the report's "ABOVE" and "FAILURE" lines), so `make bench`
fails. What the runtime and the emulator (a child that shares this process's stderr) log while it
runs goes to --log (.local/bench.log); the report says how many errors they logged.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from bench import report
from bench.run import SECTIONS, Options, run

DEFAULT_JSON = Path(".local") / "bench.json"
DEFAULT_LOG = Path(".local") / "bench.log"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    defaults = Options()
    parser = argparse.ArgumentParser(prog="python -m bench", description="Postline benchmarks (make bench).")
    parser.add_argument("--sends", type=int, default=defaults.sends, help="sequential sends (%(default)s)")
    parser.add_argument("--clients", type=int, default=defaults.clients, help="concurrent clients (%(default)s)")
    parser.add_argument(
        "--concurrent-sends", type=int, default=defaults.concurrent_sends, help="sends by them (%(default)s)"
    )
    parser.add_argument("--batch", type=int, default=defaults.batch, help="batch recipients (%(default)s)")
    parser.add_argument(
        "--small-batch", type=int, default=defaults.small_batch, help="the batches' smaller size (%(default)s)"
    )
    parser.add_argument("--burst", type=int, default=defaults.burst, help="sends the pipeline delivers (%(default)s)")
    parser.add_argument(
        "--webhook-events",
        type=int,
        default=defaults.webhook_events,
        help="events timed to their webhook (%(default)s)",
    )
    parser.add_argument(
        "--webhook-rates",
        default=",".join(f"{rate:g}" for rate in defaults.webhook_rates),
        help="events/s, comma-separated, one run each (%(default)s)",
    )
    parser.add_argument("--events", type=int, default=defaults.events, help="events the query reads (%(default)s)")
    parser.add_argument(
        "--small-events", type=int, default=defaults.small_events, help="the events query's smaller size (%(default)s)"
    )
    parser.add_argument("--query-repeats", type=int, default=defaults.query_repeats, help="per query (%(default)s)")
    parser.add_argument("--export-rows", type=int, default=defaults.export_rows, help="rows exported (%(default)s)")
    parser.add_argument(
        "--cloud-events",
        type=int,
        default=defaults.cloud_events,
        help="events of the account the cloud model's events page reads when section f does not run (%(default)s)",
    )
    parser.add_argument(
        "--import-rows", type=int, default=defaults.import_rows, help="rows of the larger CSV import, j (%(default)s)"
    )
    parser.add_argument(
        "--verify-addresses", type=int, default=defaults.verify_addresses, help="l: addresses (%(default)s)"
    )
    parser.add_argument("--verify-domains", type=int, default=defaults.verify_domains, help="l: domains (%(default)s)")
    parser.add_argument(
        "--verify-singles",
        default=",".join(map(str, defaults.verify_singles)),
        help="l: single checks timed against their bare DNS lookups, one run per size, comma-separated (%(default)s)",
    )
    parser.add_argument(
        "--smtp-messages", type=int, default=defaults.smtp_messages, help="m: messages per side (%(default)s)"
    )
    parser.add_argument(
        "--small-smtp-messages", type=int, default=defaults.small_smtp_messages, help="m's smaller size (%(default)s)"
    )
    parser.add_argument(
        "--list-members",
        type=int,
        default=defaults.list_members,
        help="k: members of the larger list sent to (%(default)s; 100000 for the issue's fan-out)",
    )
    parser.add_argument(
        "--small-list-members",
        type=int,
        default=defaults.small_list_members,
        help="k's smaller list (%(default)s)",
    )
    parser.add_argument(
        "--load-seconds",
        type=float,
        default=defaults.load.seconds,
        help="o: each plan's API limit offered at twice its rate for this long (%(default)s; bench/load.py)",
    )
    parser.add_argument(
        "--load-half-seconds", type=float, default=defaults.load.half_seconds, help="o: at half (%(default)s)"
    )
    parser.add_argument(
        "--load-smtp-seconds", type=float, default=defaults.load.smtp_seconds, help="o: SMTP at twice (%(default)s)"
    )
    parser.add_argument(
        "--sections",
        default=",".join(SECTIONS),
        help="which parts to run, comma-separated (%(default)s; a-c are 'sends', d 'pipeline', d2 'end-to-end',"
        " e-g the others, h 'cloud', i 'imports', j 'suppressions', k 'listsend', l 'verify', m 'smtp',"
        " n 'metrics', o 'load')",
    )
    parser.add_argument("--json", default=str(DEFAULT_JSON), help="report file (%(default)s); empty: none")
    parser.add_argument("--log", default=str(DEFAULT_LOG), help="where the runtime's own logging goes (%(default)s)")
    args = parser.parse_args(argv)
    for name in (
        "sends",
        "clients",
        "concurrent_sends",
        "batch",
        "burst",
        "webhook_events",
        "events",
        "small_events",
        "query_repeats",
        "verify_addresses",
        "verify_domains",
    ):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.batch > 5_000:
        parser.error("--batch: the API takes at most 5,000 recipients")
    if not 1 <= args.small_batch < args.batch:
        parser.error("--small-batch must be at least 1 and below --batch")
    if not 3 <= args.small_list_members < args.list_members:
        parser.error("--small-list-members must be at least 3 (two are suppressed) and below --list-members")
    if not 1 <= args.small_smtp_messages < args.smtp_messages:
        parser.error("--small-smtp-messages must be at least 1 and below --smtp-messages")
    try:
        args.verify_singles = tuple(int(size) for size in args.verify_singles.split(",") if size.strip())
    except ValueError:
        parser.error("--verify-singles: whole numbers, comma-separated")
    if any(size < 1 for size in args.verify_singles):
        parser.error("--verify-singles: each size at least 1")
    try:
        args.webhook_rates = tuple(float(rate) for rate in args.webhook_rates.split(",") if rate.strip())
    except ValueError:
        parser.error("--webhook-rates: numbers, comma-separated")
    if min(args.load_seconds, args.load_half_seconds, args.load_smtp_seconds) <= 0:
        parser.error("--load-seconds, --load-half-seconds and --load-smtp-seconds must be positive")
    if args.cloud_events < 1 or args.export_rows < 1 or not args.webhook_rates or min(args.webhook_rates) <= 0:
        parser.error("--cloud-events, --export-rows and --webhook-rates must be positive")
    args.sections = tuple(name.strip() for name in args.sections.split(",") if name.strip())
    if unknown := set(args.sections) - set(SECTIONS):
        parser.error(f"--sections: unknown {sorted(unknown)}; choose from {', '.join(SECTIONS)}")
    return args


@contextmanager
def stderr_to(path: Path) -> Iterator[TextIO]:
    """Points file descriptor 2 (this process's and every child's stderr) at `path` while the block
    runs; yields a stream to the real stderr, for progress."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    console = os.fdopen(os.dup(2), "w", buffering=1)
    with path.open("w") as log:
        os.dup2(log.fileno(), 2)
        try:
            yield console
        finally:
            sys.stderr.flush()
            os.dup2(console.fileno(), 2)
            console.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    options = Options(
        sends=args.sends,
        clients=args.clients,
        concurrent_sends=args.concurrent_sends,
        batch=args.batch,
        small_batch=args.small_batch,
        burst=args.burst,
        webhook_events=args.webhook_events,
        webhook_rates=args.webhook_rates,
        events=args.events,
        small_events=args.small_events,
        query_repeats=args.query_repeats,
        export_rows=args.export_rows,
        cloud_events=args.cloud_events,
        import_rows=args.import_rows,
        verify_addresses=args.verify_addresses,
        verify_domains=args.verify_domains,
        verify_singles=args.verify_singles,
        smtp_messages=args.smtp_messages,
        small_smtp_messages=args.small_smtp_messages,
        list_members=args.list_members,
        small_list_members=args.small_list_members,
        load=dataclasses.replace(
            Options().load,
            seconds=args.load_seconds,
            half_seconds=args.load_half_seconds,
            smtp_seconds=args.load_smtp_seconds,
        ),
        sections=args.sections,
    )
    began = time.perf_counter()
    host = report.machine()
    log = Path(args.log)
    with stderr_to(log) as console:

        def progress(step: str) -> None:
            print(f"[{time.perf_counter() - began:6.1f} s] {step}", file=console, flush=True)

        results = run(options, progress)
    host["load_after"] = report.load()
    errors = log.read_text(errors="replace").count("Traceback (most recent call last)")
    print(report.render(results, host), flush=True)
    if errors:
        print(
            f"The runtime and the emulator logged {errors} error(s) during the run, see {log}"
            " (moto's TransactWriteItems copies tables while other requests write them: it can fail"
            " with 'dictionary changed size during iteration', and botocore retries the call).",
            flush=True,
        )
    if args.json:
        report.write_json(Path(args.json), results, host)
        print(f"(also written to {args.json})", flush=True)
    if missed := report.missed(results):
        load = host["load_after"]
        print(f"\nBENCH FAILED: {len(missed)} aim(s) missed in this run (1-min load {load} after it):", flush=True)
        for line in missed:
            print(f"  - {line}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
