"""The SMTP submission task (Fargate, infra/smtp.Dockerfile):
`python -m postline.tasks.submission --cert FILE --key FILE`.

Listens on 587 (STARTTLS, required before AUTH) and 465 (implicit TLS) until SIGTERM (how ECS stops a
task: connections in progress finish their command, then the task exits). The environment is POST
/v3/messages' function's (postline/deployment.py SMTP_SETTINGS), checked at start as a cold start is.
"""

from __future__ import annotations

import argparse
import signal
import ssl
from contextlib import ExitStack

from postline import wiring
from postline.deployment import SMTP_SETTINGS
from postline.smtp.server import SubmissionServer
from postline.wiring import smtp


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m postline.tasks.submission", description="Postline's SMTP submission task."
    )
    parser.add_argument("--cert", required=True, help="PEM certificate chain for TLS")
    parser.add_argument("--key", required=True, help="PEM private key for TLS")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (%(default)s)")  # noqa: S104  # the task's own
    parser.add_argument("--port", type=int, default=587, help="STARTTLS port (%(default)s)")
    parser.add_argument("--tls-port", type=int, default=465, help="implicit TLS port; 0: none (%(default)s)")
    parser.add_argument("--hostname", default="smtp.postline.dev", help="the name the greeting gives (%(default)s)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    wiring.require(*SMTP_SETTINGS)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(args.cert, args.key)
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)  # before any thread starts: taken with sigwait below
    servers = [
        SubmissionServer(smtp.submission_service, host=args.host, port=args.port, tls=context, hostname=args.hostname)
    ]
    if args.tls_port:
        servers.append(
            SubmissionServer(
                smtp.submission_service,
                host=args.host,
                port=args.tls_port,
                tls=context,
                implicit_tls=True,
                hostname=args.hostname,
            )
        )
    with ExitStack() as running:
        for server in servers:
            server.start()
            running.callback(server.stop)
        signal.sigwait(stop)


if __name__ == "__main__":
    main()
