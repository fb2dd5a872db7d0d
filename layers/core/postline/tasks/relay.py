"""The SMTP relay task (Fargate, infra/relay.Dockerfile): `python -m postline.tasks.relay`.

Long-polls the relay queue and delivers each job over SMTP (MX lookup, STARTTLS, DKIM:
postline/delivery/transports/smtp.py) until SIGTERM, how ECS stops a task: the batch in hand is
finished, the TLS-RPT session counts still in memory are written, then the task exits. Meanwhile
it serves mailbox probes on port 8025 (postline/relay/probes.py). The environment is the
dispatcher's (postline/deployment.py RELAY_SETTINGS), checked at start as a cold start is.
"""

from __future__ import annotations

import logging
import signal
import threading
import uuid
from types import FrameType

from postline import wiring
from postline.deployment import RELAY_SETTINGS
from postline.relay.probes import PROBE_PORT, ProbeServer
from postline.wiring import relay, tlsrpt, verification


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    wiring.require(*RELAY_SETTINGS)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The mailbox probe endpoint POST /v3/validate asks (the task's ENI; its security group admits
    # only the probe clients' group).
    probes = ProbeServer(verification.direct_mailbox_prober, host="0.0.0.0", port=PROBE_PORT)  # noqa: S104
    probes.start()
    try:
        relay.relay_worker(uuid.uuid4().hex[:12]).run(stopping)
    finally:
        probes.stop()
        tlsrpt.tls_sessions().close()  # the TLS-RPT session counts not written yet


if __name__ == "__main__":
    main()
