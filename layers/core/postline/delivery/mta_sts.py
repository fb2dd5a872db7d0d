"""MTA-STS (RFC 8461): a recipient domain's promise that its MX hosts take mail over valid TLS.

The relay asks DNS for `_mta-sts.<domain>` TXT ("v=STSv1; id=..."); when there is one it fetches
`https://mta-sts.<domain>/.well-known/mta-sts.txt` (valid certificate, no redirects, 200, text/plain,
at most 64 KB) and caches the policy for its max_age, fetching again when the record's id changes.
A failed fetch keeps the cached policy (section 5.1); without one, mail goes as without MTA-STS.
In `enforce` mode the transport (transports/smtp.py) delivers only to MX hosts the policy lists, and
only after STARTTLS with a certificate valid for the MX name; `testing` and `none` change nothing
for delivery, but the transport checks `testing` policies too and reports what would have failed
(TLS-RPT, RFC 8460: postline/tlsrpt). A fetch that failed is remembered with its RFC 8460 result type
(`lookup`), so the domain's TLS-RPT report says why no policy applied.
"""

from __future__ import annotations

import http.client
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import dns.exception
import dns.resolver

from postline.egress.guard import EgressGuard, EgressRefused, NoAddress

MAX_POLICY_BYTES = 64 * 1024
MAX_AGE_LIMIT = 31_557_600  # a year: RFC 8461 section 3.2
NO_RECORD_SECONDS = 300.0  # how long "this domain has no MTA-STS record" is believed
WELL_KNOWN = "/.well-known/mta-sts.txt"


class Mode(StrEnum):
    ENFORCE = "enforce"
    TESTING = "testing"
    NONE = "none"


class FetchFailure(StrEnum):
    """Why no policy could be had, named as RFC 8460 section 4.3 names it."""

    FETCH_ERROR = "sts-policy-fetch-error"  # no answer, not 200, not text/plain, too large
    INVALID = "sts-policy-invalid"  # fetched, but not a valid RFC 8461 policy
    WEBPKI_INVALID = "sts-webpki-invalid"  # the policy host's certificate did not validate


class PolicyError(ValueError):
    """A policy, or its fetch, that does not follow RFC 8461."""

    def __init__(self, message: str, failure: FetchFailure = FetchFailure.INVALID) -> None:
        super().__init__(message)
        self.failure = failure


@dataclass(frozen=True)
class Policy:
    mode: Mode
    mx: tuple[str, ...]  # patterns: a host name, or "*." and a name (one leftmost label)
    max_age: int
    # The policy's text, a line an entry (a TLS-RPT report quotes it); not part of its meaning.
    lines: tuple[str, ...] = field(default=(), compare=False)

    @property
    def enforced(self) -> bool:
        return self.mode is Mode.ENFORCE

    def matches(self, host: str) -> bool:
        """Whether the MX host is one the policy lists (section 4.1)."""
        name = host.rstrip(".").lower()
        for pattern in self.mx:
            if pattern.startswith("*."):
                label, dot, rest = name.partition(".")
                if label and dot and rest == pattern[2:]:
                    return True
            elif name == pattern:
                return True
        return False


def record_id(texts: list[str]) -> str | None:
    """The id of the domain's STS TXT record; None without exactly one valid record (section 3.1)."""
    records = [text for text in texts if text.startswith("v=STSv1")]
    if len(records) != 1:
        return None
    fields = dict(part.strip().partition("=")[::2] for part in records[0].split(";") if part.strip())
    identifier = fields.get("id", "")
    return identifier if identifier.isalnum() and 1 <= len(identifier) <= 32 else None


def parse_policy(text: str) -> Policy:
    """Section 3.2: `key: value` lines; version STSv1, a mode, max_age, and mx (one or more; none
    needed in mode none)."""
    fields: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if not line.strip():
            continue
        lines.append(line.strip())
        key, colon, value = line.partition(":")
        if not colon:
            raise PolicyError(f"not a policy line: {line[:80]!r}")
        fields.setdefault(key.strip().lower(), []).append(value.strip())
    if fields.get("version") != ["STSv1"]:
        raise PolicyError("the policy's version is not STSv1")
    try:
        mode = Mode((fields.get("mode") or [""])[0])
    except ValueError:
        raise PolicyError("the policy's mode is not enforce, testing or none") from None
    age = (fields.get("max_age") or [""])[0]
    if not age.isdigit() or int(age) > MAX_AGE_LIMIT:
        raise PolicyError("the policy's max_age is not a number of seconds up to a year")
    mx = tuple(pattern.lower().rstrip(".") for pattern in fields.get("mx", []))
    if mode is not Mode.NONE and not mx:
        raise PolicyError("the policy lists no mx")
    return Policy(mode, mx, int(age), tuple(lines))


class HttpsPolicyFetcher:
    """GET https://mta-sts.<domain>/.well-known/mta-sts.txt, connected through the outbound address
    policy (`egress`: resolved by the relay's own DNS, never to an address inside, at the address it
    checked), its certificate checked for that name against `cafile` (None: the system's). A policy host
    inside is a fetch error that sends nothing to it."""

    def __init__(
        self, egress: EgressGuard, *, port: int = 443, cafile: str | None = None, timeout: float = 10.0
    ) -> None:
        self._egress = egress
        self._port = port
        self._context = ssl.create_default_context(cafile=cafile)
        self._timeout = timeout

    def __call__(self, domain: str) -> str:
        host = f"mta-sts.{domain}"
        try:
            raw = self._egress.connect(host, self._port, timeout=self._timeout)
        except EgressRefused as refused:
            raise PolicyError(str(refused), FetchFailure.FETCH_ERROR) from None
        except NoAddress as error:
            raise PolicyError(str(error), FetchFailure.FETCH_ERROR) from None
        except OSError as error:
            raise PolicyError(f"fetching the policy from {host} failed: {error}", FetchFailure.FETCH_ERROR) from error
        try:
            with self._context.wrap_socket(raw, server_hostname=host) as tls:
                request = f"GET {WELL_KNOWN} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                tls.sendall(request.encode())
                response = http.client.HTTPResponse(tls)
                response.begin()
                if response.status != 200:  # redirects are not followed (section 3.3)
                    raise PolicyError(f"{host} answered {response.status}", FetchFailure.FETCH_ERROR)
                if response.getheader("Content-Type", "").split(";")[0].strip().lower() != "text/plain":
                    raise PolicyError(f"{host} did not answer text/plain", FetchFailure.FETCH_ERROR)
                body = response.read(MAX_POLICY_BYTES + 1)
        except ssl.SSLCertVerificationError as error:
            raise PolicyError(f"{host}'s certificate is not valid: {error}", FetchFailure.WEBPKI_INVALID) from error
        except (OSError, http.client.HTTPException) as error:  # other ssl errors are OSErrors
            raise PolicyError(f"fetching the policy from {host} failed: {error}", FetchFailure.FETCH_ERROR) from error
        if len(body) > MAX_POLICY_BYTES:
            raise PolicyError(f"{host}'s policy is larger than 64 KB", FetchFailure.FETCH_ERROR)
        return body.decode("utf-8", errors="replace")


@dataclass
class _Cached:
    record: str | None
    policy: Policy | None
    checked: float  # when DNS was last asked
    expires: float  # when the policy (max_age) runs out
    failure: FetchFailure | None = None  # the domain has a record, but its policy could not be had


@dataclass(frozen=True)
class Lookup:
    """A domain's policy in force (None: none), and why none when its record promised one."""

    policy: Policy | None
    failure: FetchFailure | None = None


class MtaStsPolicies:
    """Policies by recipient domain, cached in this process (a relay task lives for days)."""

    def __init__(
        self,
        resolver: dns.resolver.Resolver,
        fetch: Callable[[str], str],
        *,
        recheck_seconds: float = NO_RECORD_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._resolver = resolver
        self._fetch = fetch
        self._recheck = recheck_seconds
        self._clock = clock
        self._cache: dict[str, _Cached] = {}
        self._lock = threading.Lock()

    def policy_for(self, domain: str) -> Policy | None:
        return self.lookup(domain).policy

    def lookup(self, domain: str) -> Lookup:
        domain = domain.rstrip(".").lower()
        now = self._clock()
        with self._lock:
            cached = self._cache.get(domain)
        if cached is not None and now - cached.checked < self._recheck:
            return self._answer(cached, now)
        record = self._record(domain)
        usable = cached if cached is not None and cached.policy is not None and now < cached.expires else None
        if record is None:
            # No record (or DNS failed): a cached policy still holds until its max_age (section 5.1).
            entry = _Cached(None, usable.policy if usable else None, now, usable.expires if usable else now)
        elif usable is not None and usable.record == record:
            entry = _Cached(record, usable.policy, now, usable.expires)
        else:
            try:
                policy = parse_policy(self._fetch(domain))
                entry = _Cached(record, policy, now, now + policy.max_age)
            except PolicyError as error:
                entry = _Cached(
                    usable.record if usable else None,
                    usable.policy if usable else None,
                    now,
                    usable.expires if usable else now,
                    None if usable else error.failure,
                )
        with self._lock:
            if len(self._cache) >= 100_000:
                self._cache.clear()
            self._cache[domain] = entry
        return self._answer(entry, now)

    @staticmethod
    def _answer(entry: _Cached, now: float) -> Lookup:
        if entry.policy is not None and now < entry.expires:
            return Lookup(entry.policy)
        return Lookup(None, entry.failure)

    def _record(self, domain: str) -> str | None:
        try:
            answer = self._resolver.resolve(f"_mta-sts.{domain}", "TXT")
        except dns.exception.DNSException:
            return None
        return record_id([b"".join(rdata.strings).decode(errors="replace") for rdata in answer])
