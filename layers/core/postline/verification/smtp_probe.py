"""The MailboxProber adapters: ask the recipient's MX whether a mailbox exists, without sending.

SmtpMailboxProber (the embedded runtime, and any host where outbound port 25 is open): connect to
the best MX that answers, EHLO, MAIL FROM:<> (the null sender, as bounces use), RCPT TO the address,
then RCPT TO a random address at the same domain (is it a catch-all?), QUIT. No DATA, so nothing is
ever delivered. Every step has a short timeout; a 4xx (greylisting, a busy server) is `temporary`,
a refused or silent server `unreachable`: both end as status unknown, never as a guess.
Each MX host goes through the outbound address policy (postline/egress/guard.py) and is connected to
at the address it checked: a host resolving to an address inside (loopback, private, link-local...) is
never connected to, and its answer is only that (`not_run` when no host could be asked), so nothing
a server inside says, nor whether its port is open, closed or filtered, comes back in `reason`.

RelayMailboxProber (AWS): a Lambda cannot open port 25, so in the cloud the dialogue runs on the SMTP
relay task, which serves it inside the VPC (postline/relay/probes.py: POST /v1/probe on port 8025,
found through Cloud Map as relay.postline.internal, reachable only from the probe clients' security
group). POST /v3/validate and the bulk worker run in the VPC's private subnets and ask it, waiting at
most the probe's own budget and a little more; a relay that cannot be reached, is busy or answers
nonsense gives `not_run` with the reason (smtp_check null), never a guess. The embedded runtime
serves the same endpoint from the same code on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import http.client
import secrets
import smtplib
import time

from pydantic import Field, ValidationError

from postline.egress.guard import EgressGuard, EgressRefused
from postline.shared.base import Model
from postline.verification.domain import MailboxProbe, ProbeOutcome

MAX_HOSTS = 2  # the best two MX: a domain whose first two are down will not answer a third in time
NULL_SENDER = ""
ADDRESS_TTL = 300.0
# The whole probe, every host and step: with DNS (about 10 s at worst) and RDAP (3 s) it keeps
# POST /v3/validate well inside API Gateway's 29 s, even against a server that answers slowly.
BUDGET_SECONDS = 12.0


def _outcome(code: int) -> ProbeOutcome:
    if 200 <= code < 300:
        return ProbeOutcome.ACCEPTED
    if 500 <= code < 600:
        return ProbeOutcome.REJECTED
    return ProbeOutcome.TEMPORARY


def _reply(code: int, message: bytes | str) -> str:
    text = message.decode(errors="replace") if isinstance(message, bytes) else message
    return f"{code} {' '.join(text.split())}"


class SmtpMailboxProber:
    def __init__(
        self,
        egress: EgressGuard,
        *,
        port: int,
        helo_name: str,
        timeout: float = 5.0,
        budget_seconds: float = BUDGET_SECONDS,
    ) -> None:
        self._egress = egress
        self._port = port
        self._helo = helo_name
        self._timeout = timeout
        self._budget = budget_seconds
        # MX host -> (when, its checked address or the policy's refusal), for ADDRESS_TTL
        self._addresses: dict[str, tuple[float, str | EgressRefused]] = {}

    def _address(self, host: str) -> str | None:
        """The MX host's address, resolved and checked against the outbound address policy once per
        ADDRESS_TTL (a bulk job probes one MX often); EgressRefused for a host inside."""
        now = time.monotonic()
        known = self._addresses.get(host)
        if known is not None and now - known[0] < ADDRESS_TTL:
            found: str | EgressRefused | None = known[1]
        else:
            try:
                found = next(iter(self._egress.addresses(host, self._port)), None)
            except EgressRefused as refused:
                found = refused
            if found is not None:
                if len(self._addresses) >= 10_000:
                    self._addresses.clear()
                self._addresses[host] = (now, found)
        if isinstance(found, EgressRefused):  # a fresh one each time: a cached one's traceback would grow
            raise EgressRefused(found.host, found.address, found.reason)
        return found

    def probe(self, address: str, domain: str, mx_hosts: tuple[str, ...], *, catch_all: bool | None) -> MailboxProbe:
        failures: list[str] = []
        refusals = 0
        deadline = time.monotonic() + self._budget
        hosts = mx_hosts[:MAX_HOSTS]
        for host in hosts:
            if time.monotonic() >= deadline:
                failures.append(f"{host} not tried: the probe's {self._budget:.0f} s were spent")
                break
            try:
                ip = self._address(host)
            except EgressRefused as refused:  # nothing was sent to it: only our own words come back
                failures.append(f"{host} was not probed: {refused}")
                refusals += 1
                continue
            if ip is None:
                failures.append(f"{host} has no address")
                continue
            try:
                return self._dialogue(ip, host, address, domain, catch_all, deadline)
            except (OSError, smtplib.SMTPException) as error:
                failures.append(f"{host}: {error.__class__.__name__} {error}".strip())
        if hosts and refusals == len(hosts):
            return MailboxProbe(ProbeOutcome.NOT_RUN, detail="; ".join(failures))
        return MailboxProbe(ProbeOutcome.UNREACHABLE, detail="; ".join(failures) or "no mail server")

    def _dialogue(
        self, ip: str, host: str, address: str, domain: str, catch_all: bool | None, deadline: float
    ) -> MailboxProbe:
        with _Bounded(deadline, self._timeout) as smtp:
            code, message = smtp.connect(ip, self._port)
            if code != 220:
                return MailboxProbe(_outcome(code), detail=f"{host} greeted {_reply(code, message)}")
            code, message = smtp.ehlo(self._helo)
            if not 200 <= code < 300:
                code, message = smtp.helo(self._helo)
            code, message = smtp.mail(NULL_SENDER)
            if code != 250:
                return MailboxProbe(
                    _outcome(code) if code < 500 else ProbeOutcome.TEMPORARY,  # refusing us is not about the mailbox
                    detail=f"{host} answered MAIL FROM with {_reply(code, message)}",
                )
            code, message = smtp.rcpt(address)
            outcome = _outcome(code)
            detail = f"{host} answered RCPT TO with {_reply(code, message)}"
            if outcome is ProbeOutcome.ACCEPTED and catch_all is None:
                random_code, _ = smtp.rcpt(f"{secrets.token_hex(10)}@{domain}")
                random_outcome = _outcome(random_code)
                if random_outcome is not ProbeOutcome.TEMPORARY:
                    catch_all = random_outcome is ProbeOutcome.ACCEPTED
            elif outcome is ProbeOutcome.REJECTED:
                catch_all = False  # it refuses some addresses, so it does not take every one
            with contextlib.suppress(smtplib.SMTPServerDisconnected):
                smtp.quit()
            return MailboxProbe(outcome, catch_all, detail)


class _Bounded(smtplib.SMTP):
    """smtplib.SMTP whose every step waits at most its timeout and never past the deadline."""

    def __init__(self, deadline: float, step_timeout: float) -> None:
        self._deadline = deadline
        self._step = step_timeout
        super().__init__(timeout=self._left())

    def _left(self) -> float:
        left = min(self._step, self._deadline - time.monotonic())
        if left <= 0:
            raise TimeoutError("the probe's time budget is spent")
        return left

    def putcmd(self, cmd: str, args: str = "") -> None:
        if self.sock is not None:
            self.sock.settimeout(self._left())
        super().putcmd(cmd, args)


PROBE_PATH = "/v1/probe"


class ProbeRequest(Model):
    """What the relay's probe endpoint is asked (the MailboxProber.probe arguments)."""

    address: str = Field(min_length=3, max_length=320)
    domain: str = Field(min_length=1, max_length=255)
    mx_hosts: list[str] = Field(max_length=20)
    catch_all: bool | None = None


class ProbeAnswer(Model):
    outcome: ProbeOutcome
    catch_all: bool | None = None
    detail: str = ""

    @classmethod
    def of(cls, probe: MailboxProbe) -> ProbeAnswer:
        return cls(outcome=probe.outcome, catch_all=probe.catch_all, detail=probe.detail)

    def probe(self) -> MailboxProbe:
        return MailboxProbe(self.outcome, self.catch_all, self.detail)


class RelayMailboxProber:
    """The cloud adapter: the relay task's probe endpoint (`address`: "host:port") runs the dialogue."""

    def __init__(self, address: str, *, connect_timeout: float = 2.0, budget_seconds: float = BUDGET_SECONDS) -> None:
        host, _, port = address.rpartition(":")
        self._host = host
        self._port = int(port)
        self._connect_timeout = connect_timeout
        self._timeout = budget_seconds + 3.0  # the relay's own budget, and the way there and back

    def probe(self, address: str, domain: str, mx_hosts: tuple[str, ...], *, catch_all: bool | None) -> MailboxProbe:
        request = ProbeRequest(address=address, domain=domain, mx_hosts=list(mx_hosts), catch_all=catch_all)
        where = f"the relay's probe endpoint ({self._host}:{self._port})"
        connection = http.client.HTTPConnection(self._host, self._port, timeout=self._connect_timeout)
        try:
            connection.connect()
            if connection.sock is not None:
                connection.sock.settimeout(self._timeout)
            connection.request(
                "POST", PROBE_PATH, body=request.model_dump_json(), headers={"Content-Type": "application/json"}
            )
            response = connection.getresponse()
            body = response.read(64 * 1024)
        except (OSError, http.client.HTTPException) as error:
            return MailboxProbe(ProbeOutcome.NOT_RUN, detail=f"{where} did not answer: {error or type(error).__name__}")
        finally:
            connection.close()
        if response.status == 503:
            return MailboxProbe(ProbeOutcome.NOT_RUN, detail=f"{where} is busy: no probe was run")
        if response.status != 200:
            return MailboxProbe(ProbeOutcome.NOT_RUN, detail=f"{where} answered {response.status}")
        try:
            return ProbeAnswer.model_validate_json(body).probe()
        except ValidationError:
            return MailboxProbe(ProbeOutcome.NOT_RUN, detail=f"{where} answered something that is not a probe")


class NoMailboxProber:
    """VERIFY_SMTP_PROBE=off: a deployment that never probes."""

    def probe(self, address: str, domain: str, mx_hosts: tuple[str, ...], *, catch_all: bool | None) -> MailboxProbe:
        return MailboxProbe(ProbeOutcome.NOT_RUN, detail="mailbox probing is switched off in this deployment")
