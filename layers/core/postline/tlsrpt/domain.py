"""SMTP TLS Reporting (RFC 8460): what the relay tells recipient domains about its TLS sessions.

Each SMTP session the relay opens to a recipient domain's MX is one TLS outcome for that domain (the
"policy domain"): a success, or a failure with an RFC 8460 result type, under the policy that applied
(an MTA-STS policy, or "no-policy-found"). The relay counts them per domain and UTC day; once the day
is over, a domain that publishes a `_smtp._tls` TXT record ("v=TLSRPTv1; rua=...") is sent one
aggregate report (section 4's JSON, gzip) at each `rua`: mailto: as a multipart/report message,
https: as a POST of `application/tlsrpt+gzip`. Pure rules: no I/O, no clock reads.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from urllib.parse import unquote

from postline.delivery.tls_sessions import AppliedPolicy, PolicyType, ResultType

MEDIA_TYPE = "application/tlsrpt+gzip"
MAX_FAILURE_DETAILS = 100  # per policy, the largest counts: a report stays far under DynamoDB's 400 KB
RECORD_PREFIX = "v=TLSRPTv1"


@dataclass(frozen=True)
class Tally:
    """Sessions of one domain-day with the same policy, outcome, MX and address, counted."""

    policy: AppliedPolicy
    failure: ResultType | None
    mx_host: str
    receiving_ip: str
    count: int


def parse_record(texts: Iterable[str]) -> tuple[str, ...]:
    """The reporting URIs (`rua`) of a domain's `_smtp._tls` TXT records (section 3): records not
    starting with "v=TLSRPTv1" are ignored, and unless exactly one is left the domain does not take
    reports (an empty answer). Only mailto: and https: URIs are kept, in the record's order."""
    records = [text for text in texts if text.replace(" ", "").startswith(RECORD_PREFIX + ";")]
    if len(records) != 1:
        return ()
    fields: dict[str, str] = {}
    for part in records[0].split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.strip():
            fields.setdefault(name.strip().lower(), value.strip())
    uris = []
    for raw in fields.get("rua", "").split(","):
        uri = raw.strip()
        scheme = uri.partition(":")[0].lower()
        if (scheme == "https" and uri.lower().startswith("https://")) or (scheme == "mailto" and "@" in uri):
            uris.append(uri)
    return tuple(dict.fromkeys(uris))


def mailto_address(uri: str) -> str:
    """The address of a mailto: URI (percent-decoded, without any ?headers)."""
    return unquote(uri.partition(":")[2].partition("?")[0])


def report_id(day: date, domain: str, submitter: str) -> str:
    """One id per domain-day: a report sent again after a crash is the same report (section 4.4's
    report-id is the receiver's key to drop duplicates)."""
    return f"{day.isoformat()}T00:00:00Z_{domain}@{submitter}"


def day_bounds(day: date) -> tuple[datetime, datetime]:
    """The UTC day [start, end) a report covers."""
    start = datetime.combine(day, time(0), tzinfo=UTC)
    return start, start + timedelta(days=1)


def build_report(
    *,
    organization: str,
    contact: str,
    submitter: str,
    domain: str,
    day: date,
    tallies: Iterable[Tally],
    sending_ip: str = "",
) -> dict[str, object]:
    """Section 4's aggregate report of one policy domain for one UTC day; `sending_ip`: the relay's
    source address (the static egress IP), named in each failure's details when known."""
    start, end = day_bounds(day)
    by_policy: dict[AppliedPolicy, list[Tally]] = defaultdict(list)
    for tally in tallies:
        by_policy[tally.policy].append(tally)
    policies = []
    for policy in sorted(by_policy, key=lambda p: (p.type.value, p.lines)):
        group = by_policy[policy]
        failures = sorted(
            (t for t in group if t.failure is not None),
            key=lambda t: (-t.count, str(t.failure), t.mx_host, t.receiving_ip),
        )
        described: dict[str, object] = {"policy-type": policy.type.value, "policy-domain": domain}
        if policy.type is PolicyType.STS:
            described["policy-string"] = list(policy.lines)
            described["mx-host"] = list(policy.mx)
        details = []
        for tally in failures[:MAX_FAILURE_DETAILS]:
            detail: dict[str, object] = {"result-type": str(tally.failure)}
            if sending_ip:
                detail["sending-mta-ip"] = sending_ip
            if tally.mx_host:
                detail["receiving-mx-hostname"] = tally.mx_host
            if tally.receiving_ip:
                detail["receiving-ip"] = tally.receiving_ip
            detail["failed-session-count"] = tally.count
            details.append(detail)
        entry: dict[str, object] = {
            "policy": described,
            "summary": {
                "total-successful-session-count": sum(t.count for t in group if t.failure is None),
                "total-failure-session-count": sum(t.count for t in failures),
            },
        }
        if details:
            entry["failure-details"] = details
        policies.append(entry)
    return {
        "organization-name": organization,
        "date-range": {
            "start-datetime": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "end-datetime": (end - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "contact-info": contact,
        "report-id": report_id(day, domain, submitter),
        "policies": policies,
    }


def compress(report: dict[str, object]) -> bytes:
    """The report as it travels: JSON, gzip (section 5.1); mtime 0 so the same report is the same bytes."""
    return gzip.compress(json.dumps(report, separators=(",", ":")).encode(), mtime=0)


def attachment_name(submitter: str, domain: str, day: date) -> str:
    """Section 5.3's file name: submitter!policy-domain!begin!end.json.gz (epoch seconds)."""
    start, end = day_bounds(day)
    return f"{submitter}!{domain}!{int(start.timestamp())}!{int(end.timestamp()) - 1}.json.gz"


# -- the reports' DKIM signature (section 3: a mailed report MUST carry one of the reporting domain) --

DKIM_SERVICE_TYPE = "tlsrpt"  # section 7: the DKIM key record's s= for keys that sign only reports
# Signed header fields: RFC 6376 5.4.1's, and the report's own (section 5.3), so neither can be changed.
DKIM_SIGNED_HEADERS = (
    b"from",
    b"to",
    b"subject",
    b"date",
    b"message-id",
    b"mime-version",
    b"content-type",
    b"tls-report-domain",
    b"tls-report-submitter",
)


@dataclass(frozen=True)
class ReportKey:
    """The reporting domain's DKIM key pair under one selector: the private half PEM, the public half
    base64 DER (the record's p=)."""

    domain: str
    selector: str
    private_key: str
    public_key: str
    created_at: datetime

    @property
    def record_name(self) -> str:
        return f"{self.selector}._domainkey.{self.domain}"

    @property
    def record_value(self) -> str:
        return dkim_record(self.public_key)


def dkim_record(public_key: str) -> str:
    """The TXT record the operator publishes: an RSA key for TLS reports only (s=tlsrpt)."""
    return f"v=DKIM1; k=rsa; s={DKIM_SERVICE_TYPE}; p={public_key}"


def report_selector(now: datetime, suffix: str) -> str:
    """A dated selector (with a random suffix): a rotation's next key is published beside the current
    one under a name of its own."""
    return f"tlsrpt{now:%Y%m%d}-{suffix}"


def published_key(texts: Iterable[str], public_key: str) -> bool:
    """Whether a selector's TXT answer holds this key (p=, whitespace ignored as in RFC 6376 3.6.1)."""
    for text in texts:
        tags = {}
        for part in text.split(";"):
            name, _, value = part.partition("=")
            tags[name.strip().lower()] = "".join(value.split())
        if tags.get("p") == public_key and tags.get("v", "DKIM1") == "DKIM1":
            return True
    return False
