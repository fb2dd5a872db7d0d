"""Who follows a link: a person, or a link scanner. The one rule set click tracking and hosted upload
downloads share (tracking/, uploads/), documented in README ("Uploads", "Scanners").

Security gateways (Microsoft Safe Links, Mimecast, Proofpoint, Barracuda, ...), link previewers and
prefetchers fetch every link of a message, often within seconds of its delivery. A request is a
scanner's when any rule below matches, checked in this order (the first that matches is its reason):

1. `head`: a HEAD request (people's browsers GET; scanners probe with HEAD).
2. `purpose`: the browser says the fetch is speculative (Purpose/Sec-Purpose/X-Moz: prefetch, preview,
   prerender).
3. `user_agent`: no user agent, or a known scanner's, crawler's, previewer's or HTTP library's.
4. `network`: the source address is in a known scanner network (SCANNER_NETWORKS: the gateways' own
   published egress ranges).
5. `too_soon`: it came within TOO_SOON of the message's delivery, when the caller knows it (no person
   opens a message and follows a link in under that). Clicks apply it with the message's first
   delivery (tracking/service.py); a hosted upload's link followed from a message knows it too: the
   click redirect adds the message's delivery time (`with_delivery`). Opens apply rules 1-4 only
   (a mail client fetches images as the message is shown, often at once).

A scanner's hit is never counted as a person's, and never dropped unseen: a download's is recorded
apart (uploads/, `UPLOADHIT#` items with the rule), a click's is counted apart (the `ScannerClicks`
metric by rule; no event, no clicked_at). Both are still redirected.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

# Link scanners, security gateways and prefetchers that fetch every link or image of a message.
SCANNER_AGENTS = re.compile(
    r"bot\b|crawler|spider|preview|prefetch|scanner|barracuda|mimecast|proofpoint|"
    r"safelinks|ironport|urldefense|symantec|forcepoint|python-requests|curl/|wget/|go-http-client|"
    r"headlesschrome|phantomjs|slackbot|facebookexternalhit|linkedinbot|twitterbot",
    re.IGNORECASE,
)

# Egress ranges the gateways publish for their link checks (extend as vendors publish more).
SCANNER_NETWORKS = tuple(
    ipaddress.ip_network(cidr)
    for cidr in (
        "148.163.128.0/19",  # Proofpoint (pphosted)
        "205.139.110.0/24",  # Mimecast (US)
        "207.211.30.0/24",  # Mimecast (US)
        "216.205.24.0/24",  # Mimecast (US)
        "209.222.80.0/21",  # Barracuda Email Security Service
        "64.235.144.0/20",  # Barracuda Networks
    )
)

TOO_SOON = timedelta(seconds=10)

# A hosted upload's link (uploads/), and the query parameter a click redirect to it carries: the
# delivery time (Unix seconds) of the message it was followed from. Unsigned: a forged or missing
# value can only lose the timing rule, which a scanner that skipped the click would lose anyway.
HOSTED_DOWNLOAD_PATH = "/v3/track/download/"
DELIVERED_PARAM = "delivered"


def with_delivery(url: str, delivered_at: datetime | None) -> str:
    """`url` with the message's delivery time added when it is one of our hosted upload links."""
    parts = urlsplit(url)
    if delivered_at is None or not parts.path.startswith(HOSTED_DOWNLOAD_PATH) or parts.query:
        return url
    return urlunsplit(parts._replace(query=f"{DELIVERED_PARAM}={int(delivered_at.timestamp())}"))


def delivery_of(value: str | None) -> datetime | None:
    """The delivery time a hosted link's `delivered` parameter carries; None when absent or not a time."""
    try:
        return datetime.fromtimestamp(int(value or ""), UTC)
    except (ValueError, OverflowError, OSError):
        return None


# Where browsers say a fetch is speculative (a prefetch, prerender or link preview), not a visit.
PURPOSE_HEADERS = ("purpose", "sec-purpose", "x-moz")
_SPECULATIVE = ("prefetch", "preview", "prerender")


def is_bot(user_agent: str | None, purpose: str | None = None) -> bool:
    """Obvious automated traffic by the request's own words: rules 2 and 3."""
    if purpose and any(word in purpose.lower() for word in _SPECULATIVE):
        return True
    if not user_agent or not user_agent.strip():
        return True
    return bool(SCANNER_AGENTS.search(user_agent))


def in_scanner_network(ip: str | None) -> bool:
    try:
        address = ipaddress.ip_address(ip or "")
    except ValueError:
        return False
    return any(address in network for network in SCANNER_NETWORKS)


@dataclass(frozen=True)
class Visitor:
    """Who fetched a link, as far as the request tells."""

    user_agent: str | None
    purpose: str | None
    ip: str | None
    method: str = "GET"

    @classmethod
    def of_request(cls, headers: Mapping[str, str], ip: str | None, method: str = "GET") -> Visitor:
        """From the request's headers (names as sent: the mapping may be case-insensitive)."""
        purpose = next((headers[name] for name in PURPOSE_HEADERS if headers.get(name)), None)
        return cls(user_agent=headers.get("user-agent"), purpose=purpose, ip=ip, method=method.upper())

    @property
    def is_bot(self) -> bool:
        """A scanner's by rules 1-4 (what the request itself tells): opens and clicks use this."""
        return self.scanner_reason() is not None

    def scanner_reason(self, *, delivered_at: datetime | None = None, now: datetime | None = None) -> str | None:
        """The first rule of the module's rule set that makes this a scanner's request; None: a person's."""
        if self.method == "HEAD":
            return "head"
        if self.purpose and any(word in self.purpose.lower() for word in _SPECULATIVE):
            return "purpose"
        if is_bot(self.user_agent):
            return "user_agent"
        if in_scanner_network(self.ip):
            return "network"
        if delivered_at is not None and now is not None and now - delivered_at < TOO_SOON:
            return "too_soon"
        return None
