"""Real SMTP servers (aiosmtpd) on loopback addresses, each one recipient domain's MX with one
policy, for the mailbox probe:

    accept_all   250 to every RCPT TO (a catch-all domain)
    known_users  250 to its users, 550 5.1.1 to anyone else
    greylist     451 4.7.1 to every RCPT TO

The probe connects to every MX on one port (SMTP_MX_PORT, 25 on the internet), so the servers
share a port and tell themselves apart by address: 127.0.0.1, 127.0.0.2, ... (all loopback; the
first picks a free port, the others take the same). Each records the RCPTs it was asked and
whether anyone ever sent DATA (a probe never does).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiosmtpd.controller import Controller

from tests.peers.mx_server import _LoopbackController


@dataclass
class PolicyMx:
    host: str
    policy: str  # accept_all, known_users, greylist
    users: frozenset[str] = frozenset()
    rcpts: list[tuple[str, str]] = field(default_factory=list)  # (address, reply)
    data_sessions: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, address: str) -> str:
        if self.policy == "greylist":
            return "451 4.7.1 Greylisted, please try again later"
        if self.policy == "known_users" and address.partition("@")[0].lower() not in self.users:
            return "550 5.1.1 <" + address + ">: Recipient address rejected: User unknown"
        return "250 2.1.5 OK"

    # aiosmtpd's hook names and signatures
    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        answer = self.reply(address)
        with self._lock:
            self.rcpts.append((address, answer))
        if answer.startswith("250"):
            envelope.rcpt_tos.append(address)
        return answer

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self._lock:
            self.data_sessions += 1
        return "554 5.7.1 This server only answers probes"


@contextmanager
def policy_servers(specs: Sequence[tuple[str, frozenset[str]]]) -> Iterator[tuple[int, list[PolicyMx]]]:
    """One server per (policy, users), at 127.0.0.1, 127.0.0.2, ... on one shared port."""
    servers = [PolicyMx(f"127.0.0.{index + 1}", policy, users) for index, (policy, users) in enumerate(specs)]
    with ExitStack() as stack:
        port = 0
        for server in servers:
            kind = _LoopbackController if port == 0 else Controller
            controller = kind(server, hostname=server.host, port=port, server_hostname="localhost")
            controller.start()
            stack.callback(controller.stop)
            port = controller.port
        yield port, servers
