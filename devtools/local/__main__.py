"""`make run`: the whole service on this machine, until Ctrl-C.

python -m devtools.local [--api-port 3000] [--aws-port 4566] [--mail-port 1025] [--smtp-port 2525]
                         [--template template.yaml] [--state-dir .local] [--parameter Name=Value ...]
                         [--log-level WARNING] [--no-dev-account] [--no-persist]
Port 0 picks a free port. The environment can set the defaults: POSTLINE_API_PORT,
POSTLINE_AWS_PORT, POSTLINE_MAIL_PORT, POSTLINE_SMTP_PORT, POSTLINE_TEMPLATE, POSTLINE_STATE_DIR, POSTLINE_LOG_LEVEL.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from pathlib import Path

from devtools.local import emulator
from devtools.local.emulator import DEFAULT_PORT as AWS_PORT
from devtools.local.gateway import DEFAULT_PORT as API_PORT
from devtools.local.mail_sink import DEFAULT_PORT as MAIL_PORT
from devtools.local.runtime import Runtime

SMTP_PORT = 2525


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    env = os.environ
    parser = argparse.ArgumentParser(
        prog="python -m devtools.local", description="The whole Postline service on this machine."
    )
    ports = "%(default)s; 0 picks a free port"
    parser.add_argument(
        "--api-port", type=int, default=int(env.get("POSTLINE_API_PORT", API_PORT)), help=f"API ({ports})"
    )
    parser.add_argument(
        "--aws-port", type=int, default=int(env.get("POSTLINE_AWS_PORT", AWS_PORT)), help=f"AWS emulator ({ports})"
    )
    parser.add_argument(
        "--mail-port", type=int, default=int(env.get("POSTLINE_MAIL_PORT", MAIL_PORT)), help=f"mail sink ({ports})"
    )
    parser.add_argument(
        "--smtp-port",
        type=int,
        default=int(env.get("POSTLINE_SMTP_PORT", SMTP_PORT)),
        help=f"SMTP submission ({ports})",
    )
    parser.add_argument(
        "--template", type=Path, default=Path(env.get("POSTLINE_TEMPLATE", "template.yaml")), help="%(default)s"
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        default=Path(env.get("POSTLINE_STATE_DIR", ".local")),
        help="where dev.json and the emulator's snapshot are kept between starts (%(default)s)",
    )
    parser.add_argument(
        "--no-persist",
        dest="persist",
        action="store_false",
        help="start with an empty emulator and keep nothing; by default the emulator's state (tables, queues, "
        "buckets, keys, schedules) and the local DNS zone are restored from the state dir and saved there every "
        "30 s and at stop",
    )
    parser.add_argument(
        "--parameter",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a template parameter (repeatable)",
    )
    parser.add_argument(
        "--log-level",
        default=env.get("POSTLINE_LOG_LEVEL", "WARNING"),
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="for the runtime and the functions' Powertools logger",
    )
    parser.add_argument(
        "--no-dev-account",
        dest="dev_account",
        action="store_false",
        help="do not seed the development account (for templates other than Postline's)",
    )
    parser.add_argument(
        "--no-spamd",
        dest="spamd",
        action="store_false",
        help="do not start spamd for the content check (it starts when installed; without it the check says "
        "spamassassin: unavailable)",
    )
    args = parser.parse_args(argv)
    if any("=" not in item for item in args.parameter):
        parser.error("--parameter takes NAME=VALUE")
    return args


def banner(runtime: Runtime, state_file: Path) -> str:
    dev = runtime.dev
    lines = [
        "Postline is running on this machine.",
        f"  API        {runtime.base_url}",
        f"  AWS        {runtime.endpoint_url}  (moto; region {dev['aws']['region']})",
        f"  Mail sink  smtp://{runtime.mail_sink}  (GET {runtime.base_url}/_local/mailbox)",
        f"  SMTP       smtp://{runtime.smtp}  (submission: AUTH user api, password a key; STARTTLS with "
        f"{runtime.smtp_certificate})",
        f"  spamd      {runtime.spamd or 'not installed: the content check says spamassassin: unavailable'}",
        f"  State      {state_file}",
    ]
    if link := runtime.console_link():
        lines.append(f"  Console    {link}  (signs in once)")
    if dev["keys"]:
        lines += [
            f"  Account    {dev['account_id']}",
            f"  Live key   {dev['keys']['live']}",
            f"  Test key   {dev['keys']['test']}",
            "",
            "Try:",
            f'  curl -H "Authorization: Bearer {dev["keys"]["live"]}" {runtime.base_url}/v3/whoami',
        ]
    return "\n".join([*lines, "", "Ctrl-C to stop."])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if logging.getLevelName(args.log_level) <= logging.WARNING:
        # What the emulator says as it starts: a snapshot's size as it loads, how far it has read, how long it took.
        logging.getLogger(emulator.__name__).setLevel(min(logging.INFO, logging.getLevelName(args.log_level)))
    # Ctrl-C and SIGTERM are blocked here, before any thread starts (threads inherit the mask),
    # and taken with sigwait below: a Python signal handler could interrupt a thread holding a
    # lock it then needs, and a KeyboardInterrupt could land anywhere.
    stop_signals = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    runtime = Runtime(
        args.template,
        args.state_dir,
        api_port=args.api_port,
        aws_port=args.aws_port,
        mail_port=args.mail_port,
        smtp_port=args.smtp_port,
        parameters=dict(item.split("=", 1) for item in args.parameter),
        log_level=args.log_level,
        dev_account=args.dev_account,
        persist=args.persist,
        spamd=args.spamd,
    )
    try:
        runtime.start()
    except OSError as error:  # a port in use, a server that did not start: say which, without a traceback
        print(f"devtools.local: cannot start: {error}", file=sys.stderr)
        return 1
    try:
        print(banner(runtime, args.state_dir / "dev.json"), flush=True)
        signal.sigwait(stop_signals)
    finally:
        runtime.stop()
    print("Stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
