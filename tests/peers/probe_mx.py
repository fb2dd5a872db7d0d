"""A real SMTP server (aiosmtpd) on 127.0.0.1 that is the MX of several recipient domains, each
answering RCPT TO with its own policy, for the mailbox probe:

    accept_all   250 to every RCPT TO (a catch-all domain)
    known_users  250 to its users, 550 5.1.1 to anyone else
    greylist     451 4.7.1 to every RCPT TO

One server hosting many domains is what a provider's MX is; it also keeps every test server on
127.0.0.1 (the probe connects to every MX on one port, SMTP_MX_PORT, as it connects to 25 on the
internet, so servers could otherwise only be told apart by address). Each policy records the
RCPTs it was asked and whether anyone sent DATA for its domains (a probe never does).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.peers.mx_server import HOST, _LoopbackController

MX_HOST = HOST  # every domain's MX host resolves here


@dataclass
class PolicyMx:
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

    def asked(self, address: str) -> str:
        answer = self.reply(address)
        with self._lock:
            self.rcpts.append((address, answer))
        return answer


class _Domains:
    """aiosmtpd's handler: each RCPT TO answered by its domain's policy."""

    def __init__(self, policies: Mapping[str, PolicyMx]) -> None:
        self._policies = {domain.lower(): policy for domain, policy in policies.items()}

    # aiosmtpd's hook names and signatures
    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        policy = self._policies.get(address.rpartition("@")[2].lower())
        if policy is None:
            return "550 5.1.2 <" + address + ">: this server is not the MX of its domain"
        answer = policy.asked(address)
        if answer.startswith("250"):
            envelope.rcpt_tos.append(address)
        return answer

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        for policy in {id(p): p for a in envelope.rcpt_tos if (p := self._policies.get(a.rpartition("@")[2]))}.values():
            with policy._lock:
                policy.data_sessions += 1
        return "554 5.7.1 This server only answers probes"


@contextmanager
def policy_servers(policies: Mapping[str, PolicyMx]) -> Iterator[int]:
    """One server on MX_HOST, the MX of every domain in `policies` (several may share a policy);
    yields its port."""
    controller = _LoopbackController(_Domains(policies), hostname=MX_HOST, port=0, server_hostname="localhost")
    controller.start()
    try:
        yield controller.port
    finally:
        controller.stop()
