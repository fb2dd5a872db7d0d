"""Direct SMTP: to the recipient domain's MX hosts, or through one relay (the embedded runtime's
sink, or a smart host). STARTTLS whenever the server offers it, a DKIM signature with the sending
domain's key, and each reply mapped to an outcome: 2xx delivered, 4xx deferred, 5xx bounced. A reply
SMTP does not allow at its step (DATA answered 250 instead of 354, so the content was never sent) is a
protocol failure: deferred, never delivered.

smtplib is used rather than a queueing MTA library because the queue is ours (SQS + the retry
schedule); this only has to speak one SMTP transaction and report what happened.

Every MX host goes through the outbound address policy (postline/egress/guard.py) and is connected to
at the address it checked. A host resolving to an address inside (loopback, private, link-local...) is
a permanent routing failure for that host, never connected to; when every MX host of the domain is
refused the recipient bounces (hard, 5.4.4 "unable to route"), as an MTA refuses an MX that points at
loopback or a private network (Exim's ignore_target_hosts makes the address unroutable; Postfix
bounces mail whose MX loops back to itself); when other hosts could not be reached it is deferred.
A smart host (`relay`, SMTP_RELAY) is the operator's, not a customer's: it is not checked.
"""

from __future__ import annotations

import logging
import smtplib
import socket
import ssl
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import dkim
import dns.exception
import dns.name

from postline.delivery.mta_sts import Lookup, Mode, MtaStsPolicies, Policy
from postline.delivery.outcomes import BounceClass, BounceType, Outcome, OutcomeKind, classify_smtp
from postline.delivery.parcel import Parcel
from postline.delivery.ports import TlsSessions
from postline.delivery.tls_sessions import (
    NO_POLICY,
    AppliedPolicy,
    PolicyType,
    ResultType,
    TlsSession,
    classify_verify_code,
)
from postline.egress.guard import EgressGuard, EgressRefused
from postline.shared.mx import MxResolver

logger = logging.getLogger(__name__)
# Signed headers (RFC 6376 5.4.1's recommendations, and ours): changing any breaks the signature.
DKIM_HEADERS = [
    b"from",
    b"to",
    b"cc",
    b"subject",
    b"date",
    b"message-id",
    b"reply-to",
    b"mime-version",
    b"content-type",
    b"list-unsubscribe",
    b"list-unsubscribe-post",
]


@dataclass(frozen=True)
class _Judged:
    """How a session to one MX of a recipient domain is judged for TLS-RPT (RFC 8460)."""

    domain: str
    policy: AppliedPolicy
    verify: bool  # an enforce or testing MTA-STS policy: the certificate must be valid for the MX name
    failure: ResultType | None = None  # already failed whatever TLS does (no policy to be had, MX not listed)


class _Unverified(Exception):
    """A testing-mode policy's MX whose TLS did not validate: reported; the mail goes without the check."""


class _TlsFailed(Exception):
    """STARTTLS offered but failed, where the transport then goes on in plain text (`tls_optional`)."""


@dataclass(frozen=True)
class Relay:
    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> Relay | None:
        """ "host:port" -> Relay; empty -> None (deliver to each domain's MX)."""
        if not text.strip():
            return None
        host, _, port = text.strip().rpartition(":")
        return cls(host, int(port))


def dkim_sign(parcel: Parcel) -> bytes:
    if parcel.domain is None:
        return parcel.mime
    signature = dkim.sign(
        parcel.mime,
        parcel.domain.dkim_selector.encode(),
        parcel.domain.domain.encode(),
        parcel.domain.dkim_private_key.encode(),
        include_headers=[h for h in DKIM_HEADERS if h in parcel.mime.lower()],
    )
    return bytes(signature) + parcel.mime


def ascii_domain(address: str) -> str:
    """The address with an internationalized domain as its A-label (IDNA), as DNS was asked for it;
    a non-ASCII local part stays: only SMTPUTF8 (RFC 6531) can carry it."""
    local, at, domain = address.rpartition("@")
    if domain.isascii():
        return address
    try:
        return f"{local}{at}{dns.name.from_text(domain).to_text(omit_final_dot=True)}"
    except dns.exception.DNSException:
        return address


def _answered(name: str, step: str, code: int, text: str, *, expected: str | None = "2xx") -> Outcome:
    """The outcome of the reply to `step`: 2xx (where 2xx lets the transaction go on) delivered, 4xx and
    5xx as classify_smtp says; any other (DATA answered 250 where only 354 lets the content go, a 3xx
    to RCPT) is a protocol failure (RFC 5321 section 4.3.2): nothing was delivered and nothing is known
    of the recipient, so deferred, and the next MX or a later attempt tries again."""
    if code >= 400 or (expected == "2xx" and 200 <= code < 300):
        return classify_smtp(code, text)
    reply = " ".join(f"{code} {text}".split())
    instead = f", not {expected}" if expected else ""
    return Outcome(
        OutcomeKind.DEFERRED,
        reason=f"SMTP protocol error: {name} answered {step} with {reply}{instead}: the message was not sent",
        data={"mx": name},
    )


class _MxConnection(smtplib.SMTP):
    """Speaks to the MX by name (what STARTTLS checks its certificate against) at the address the
    resolver gave, never the system resolver's."""

    def __init__(
        self, name: str, address: str, port: int, *, local_hostname: str, timeout: float, source: str | None = None
    ) -> None:
        self._address = address
        # source: the IP pool's address the connection leaves from (None: the host's choice)
        source_address = (source, 0) if source else None
        super().__init__(name, port, local_hostname=local_hostname, timeout=timeout, source_address=source_address)

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        # smtplib.SMTP._get_socket, at the address instead of the name.
        return socket.create_connection((self._address, port), timeout, self.source_address)


class SmtpTransport:
    def __init__(
        self,
        *,
        relay: Relay | None,
        resolver: MxResolver,
        egress: EgressGuard | None = None,
        mx_port: int = 25,
        helo_name: str = "localhost",
        timeout: float = 30.0,
        mta_sts: MtaStsPolicies | None = None,
        mx_cafile: str | None = None,
        tls_sessions: TlsSessions | None = None,
        tls_optional: bool = False,
        local_address: Callable[[str], str] | None = None,
    ) -> None:
        """mta_sts: recipient domains' policies (None: opportunistic TLS only); mx_cafile: the CAs an
        enforced or testing policy's MX certificates are checked against (None: the system's);
        tls_sessions: told each MX session's TLS outcome, for the domains' TLS-RPT reports (None: not
        counted). Sessions through a smart host (`relay`) are not the recipient domains' and not counted.
        tls_optional (without mta_sts): when an MX offers STARTTLS and it fails, the message goes to that
        MX again in plain text, as mailed TLS-RPT reports must (RFC 8460 section 5.3).
        egress: the outbound address policy MX hosts are resolved and checked by (needed without `relay`).
        local_address: the address to bind for a copy's source (its pool's address): the relay host's
        private address carrying that Elastic IP (config.py RelaySources); None: bound as it is."""
        if tls_optional and mta_sts is not None:
            raise ValueError("tls_optional is for a transport without MTA-STS policies")
        if relay is None and egress is None:
            raise ValueError("delivering to MX hosts needs the outbound address policy (egress)")
        self._egress = egress
        self._tls_optional = tls_optional
        self._tls_sessions = tls_sessions
        self._mta_sts = mta_sts
        self._mx_cafile = mx_cafile
        self._relay = relay
        self._resolver = resolver
        self._mx_port = mx_port
        self._helo = helo_name
        self._timeout = timeout
        self._local_address = local_address

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            yield self._deliver_one(parcel)

    def _deliver_one(self, parcel: Parcel) -> Outcome:
        try:
            data = dkim_sign(parcel)
        except dkim.DKIMException as error:  # our key is unusable: nothing goes out unsigned
            logger.error("DKIM signing for %s failed: %s", parcel.domain and parcel.domain.domain, error)
            return Outcome(OutcomeKind.DEFERRED, reason=f"DKIM signing failed: {error}")
        policy: Policy | None = None
        policy_domain, found = "", Lookup(None)
        refused: list[str] = []  # MX hosts the outbound address policy refused, why
        if self._relay is not None:
            hops = [(self._relay.host, self._relay.host, self._relay.port)]
        else:
            domain = parcel.recipient.rsplit("@", 1)[-1]
            answer = self._resolver.lookup(domain)
            if answer.permanent_error:
                # A null MX or no domain (RFC 7505: 5.1.10): the address cannot exist.
                return Outcome(
                    OutcomeKind.BOUNCED,
                    bounce_type=BounceType.HARD,
                    reason=answer.permanent_error,
                    bounce_class=BounceClass.HARD,
                )
            if answer.temporary_error:
                return Outcome(OutcomeKind.DEFERRED, reason=answer.temporary_error)
            policy_domain = ascii_domain(f"@{domain}")[1:].lower()
            found = self._mta_sts.lookup(policy_domain) if self._mta_sts is not None else Lookup(None)
            policy = found.policy
            hosts = answer.hosts
            if policy is not None and policy.enforced:
                hosts = [host for host in hosts if policy.matches(host)]
                if not hosts:  # RFC 8461 section 5: never to an MX the policy does not list
                    return Outcome(
                        OutcomeKind.DEFERRED, reason=f"MTA-STS: no MX host of {domain} matches its enforced policy"
                    )
            hops = []
            assert self._egress is not None  # checked at construction
            for host in hosts:
                # Only the policy's resolver's answers count: a host it has no address for is skipped,
                # never handed to the system's resolver (which may be another DNS altogether).
                try:
                    addresses = self._egress.addresses(host, self._mx_port)
                except EgressRefused as refusal:  # never connected to: a permanent failure for this host
                    refused.append(str(refusal))
                    continue
                if not addresses:
                    logger.info("MX host %s of %s has no address: skipped", host, domain)
                    continue
                hops.append((host, addresses[0], self._mx_port))
            if refused and len(refused) == len(hosts):
                return Outcome(
                    OutcomeKind.BOUNCED,
                    bounce_type=BounceType.HARD,
                    reason=f"5.4.4 no MX host of {domain} may be connected to: {'; '.join(refused)}",
                    bounce_class=BounceClass.HARD,
                )
        judged = self._judged(policy_domain, found) if self._relay is None else None
        enforced = policy is not None and policy.enforced
        reason = "no mail server could be reached" + (f" ({'; '.join(refused)})" if refused else "")
        if enforced:
            reason = "MTA-STS: no MX host listed in the enforced policy could be reached over valid TLS"
        last = Outcome(OutcomeKind.DEFERRED, reason=reason)
        for name, address, port in hops:
            check = judged
            if judged is not None and policy is not None and not policy.matches(name):
                check = replace(judged, failure=judged.failure or ResultType.VALIDATION_FAILURE)  # testing mode
            try:
                outcome = self._transaction(name, address, port, parcel, data, policy if enforced else None, check)
            except _Unverified:
                outcome = self._transaction(name, address, port, parcel, data)  # testing mode: as without it
            except _TlsFailed:
                logger.info("STARTTLS with %s failed: delivering in plain text (TLS is optional here)", name)
                outcome = self._transaction(name, address, port, parcel, data, plain=True)
            if outcome is None:
                continue  # could not connect (or, enforced, no valid TLS): try the next MX
            if outcome.kind is not OutcomeKind.DEFERRED:
                return outcome
            last = outcome  # a 4xx from one MX: the next may take it
        return last

    def _judged(self, domain: str, found: Lookup) -> _Judged | None:
        if self._tls_sessions is None:
            return None
        policy = found.policy
        if policy is None or policy.mode is Mode.NONE:
            failure = ResultType(found.failure.value) if found.failure is not None else None
            return _Judged(domain, NO_POLICY, verify=False, failure=failure)
        return _Judged(domain, AppliedPolicy(PolicyType.STS, policy.lines, policy.mx), verify=True)

    def _note(self, judged: _Judged | None, name: str, address: str, result: ResultType | None) -> None:
        if judged is not None and self._tls_sessions is not None:
            failure = judged.failure or result
            self._tls_sessions.record(TlsSession(judged.domain, judged.policy, failure, name, address))

    def _secure(self, smtp: smtplib.SMTP, name: str, address: str, enforced: bool, judged: _Judged | None) -> bool:
        """STARTTLS as the policy asks; False when the session may not go on (an enforced policy unmet)."""
        verify = enforced or (judged is not None and judged.verify)
        if not smtp.has_extn("starttls"):  # without a policy, plain text is what the MX offers
            self._note(judged, name, address, ResultType.STARTTLS_NOT_SUPPORTED)
            if enforced:
                logger.info("MX %s offers no STARTTLS; the MTA-STS policy is enforced", name)
            return not enforced
        if verify:
            # MTA-STS (enforce, or testing and reported): a certificate valid for the MX name.
            context = ssl.create_default_context(cafile=self._mx_cafile)
        else:
            # Opportunistic TLS (RFC 3207), as MTAs do between each other: encrypt whenever
            # offered; MX certificates are not checked without MTA-STS/DANE policy.
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        try:
            smtp.starttls(context=context)
        except ssl.SSLError as error:
            code = error.verify_code if isinstance(error, ssl.SSLCertVerificationError) else None
            self._note(judged, name, address, classify_verify_code(code))
            if verify and not enforced:
                raise _Unverified from error
            if self._tls_optional:
                raise _TlsFailed from error
            raise
        except (OSError, smtplib.SMTPException) as error:  # refused (454), or the connection dropped in it
            if self._tls_optional:
                raise _TlsFailed from error
            raise
        self._note(judged, name, address, None)
        try:
            smtp.ehlo()
        except (OSError, smtplib.SMTPException) as error:  # the server gave up on the TLS session
            if self._tls_optional:
                raise _TlsFailed from error
            raise
        return True

    def _bound(self, parcel: Parcel) -> str | None:
        """The local address the copy's connection binds: its pool address, or the private address
        that carries it on the relay host (the pool address being an Elastic IP there)."""
        if parcel.source_ip is None or self._local_address is None:
            return parcel.source_ip
        return self._local_address(parcel.source_ip)

    def _transaction(
        self,
        name: str,
        address: str,
        port: int,
        parcel: Parcel,
        data: bytes,
        enforced: Policy | None = None,
        judged: _Judged | None = None,
        *,
        plain: bool = False,
    ) -> Outcome | None:
        """plain: no STARTTLS even when offered (after it failed with this MX, where TLS is optional)."""
        try:
            with _MxConnection(
                name, address, port, local_hostname=self._helo, timeout=self._timeout, source=self._bound(parcel)
            ) as smtp:
                smtp.ehlo()
                if not plain and not self._secure(smtp, name, address, enforced is not None, judged):
                    return None
                sender, recipient = ascii_domain(parcel.return_path or parcel.sender), ascii_domain(parcel.recipient)
                options: list[str] = []
                if not (sender.isascii() and recipient.isascii()):
                    if not smtp.has_extn("smtputf8"):
                        return Outcome(
                            OutcomeKind.BOUNCED,
                            bounce_type=BounceType.HARD,
                            reason=f"{name} does not take internationalized addresses (no SMTPUTF8)",
                            data={"mx": name},
                        )
                    options = ["SMTPUTF8"]  # smtplib then sends commands as UTF-8
                code, text = smtp.mail(sender, options)
                if not 200 <= code < 300:
                    return _answered(name, "MAIL FROM", code, text.decode(errors="replace"))
                code, text = smtp.rcpt(recipient)
                if not 200 <= code < 300:
                    return _answered(name, "RCPT TO", code, text.decode(errors="replace"))
                code, text = smtp.data(data)  # SMTPDataError unless DATA was answered 354
                outcome = _answered(name, "the end of the data", code, text.decode(errors="replace"))
                return replace(outcome, data={"mx": name})
        except smtplib.SMTPResponseException as error:
            reply = error.smtp_error  # bytes from the server, str from some of smtplib's own checks
            said = reply if isinstance(reply, str) else reply.decode(errors="replace")
            if isinstance(error, smtplib.SMTPDataError):
                return _answered(name, "DATA", error.smtp_code, said, expected="354")
            return _answered(name, "a command", error.smtp_code, said, expected=None)
        except (TimeoutError, OSError, smtplib.SMTPException) as error:
            logger.info("SMTP to %s (%s:%d) failed: %s", name, address, port, error)
            return None
