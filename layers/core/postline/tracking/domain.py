"""Open and click tracking and one-click unsubscribe: signed tokens, link wrapping, bot filtering.

A token carries what the tracking routes need (account, message, recipient, the link), signed
with HMAC-SHA256, so the routes need no lookup to answer and cannot be made into open redirects.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from html import escape, unescape
from urllib.parse import urlsplit

from pydantic import ValidationError

from postline.shared.base import Model
from postline.shared.header_text import header_text_problem

# The scanner rule set is shared with hosted upload downloads (shared/scanners.py); re-exported here.
from postline.shared.scanners import PURPOSE_HEADERS as PURPOSE_HEADERS
from postline.shared.scanners import Visitor as Visitor
from postline.shared.scanners import is_bot as is_bot

SIGNATURE_BYTES = 16


class TrackKind(StrEnum):
    OPEN = "o"
    CLICK = "c"
    UNSUBSCRIBE = "u"


class TrackToken(Model):
    kind: TrackKind
    account_id: str
    message_id: str
    recipient: str
    url: str | None = None  # the original link, for clicks


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign_token(token: TrackToken, secret: bytes) -> str:
    body = json.dumps(token.model_dump(exclude_none=True), separators=(",", ":")).encode()
    signature = hmac.new(secret, body, hashlib.sha256).digest()[:SIGNATURE_BYTES]
    return f"{_b64(body)}.{_b64(signature)}"


def read_token(text: str, secret: bytes, kind: TrackKind) -> TrackToken | None:
    """The token's contents when its signature holds and it is of `kind`; None otherwise."""
    body_part, _, signature_part = text.partition(".")
    try:
        body, signature = _unb64(body_part), _unb64(signature_part)
        expected = hmac.new(secret, body, hashlib.sha256).digest()[:SIGNATURE_BYTES]
        if not hmac.compare_digest(signature, expected):
            return None
        token = TrackToken.model_validate_json(body)
    except (ValueError, ValidationError):
        return None
    return token if token.kind is kind else None


# href (not data-href) of an <a>, double- or single-quoted; the URL may hold the other quote.
_HREF = re.compile(r"""(<a\s(?:[^>]*?\s)?href\s*=\s*)(?:"(https?://[^"]+)"|'(https?://[^']+)')""", re.IGNORECASE)


# What a browser removes from a URL before it parses it (the WHATWG URL standard): tabs and newlines
# anywhere, C0 controls and spaces at either end. Hand-written: urllib.parse strips only some of these
# (and only since 3.11.4, quietly), and no maintained library in the layer implements the standard.
_URL_NOISE = re.compile(r"[\t\n\r]")
_URL_EDGES = "".join(chr(code) for code in range(0x21))


def redirect_target(url: str) -> str | None:
    """`url` as a browser would follow it (normalised as the WHATWG URL standard does), when that is
    an http(s) URL with a host that a Location header can carry; None otherwise."""
    normalised = _URL_NOISE.sub("", url.strip(_URL_EDGES)).replace(" ", "%20")  # as browsers encode it
    if header_text_problem(normalised) is not None:
        return None
    try:
        parts = urlsplit(normalised)
    except ValueError:  # e.g. an unclosed [IPv6 literal
        return None
    return normalised if parts.scheme in ("http", "https") and parts.hostname else None


def wrap_links(html: str, wrap: Callable[[str], str]) -> str:
    """Every http(s) link in an <a href> replaced by wrap(its redirect target); a link that cannot be
    redirected to (controls left after normalising, no host) is left as it is, never wrapped."""

    def replace(match: re.Match[str]) -> str:
        quote = '"' if match.group(2) is not None else "'"
        target = redirect_target(unescape(match.group(2) if match.group(2) is not None else match.group(3)))
        if target is None:
            return match.group(0)
        return f"{match.group(1)}{quote}{escape(wrap(target))}{quote}"

    return _HREF.sub(replace, html)


def add_pixel(html: str, pixel_url: str) -> str:
    tag = f'<img src="{escape(pixel_url)}" width="1" height="1" alt="" style="display:none" />'
    closing = re.search(r"</body\s*>", html, re.IGNORECASE)
    if closing:
        return html[: closing.start()] + tag + html[closing.start() :]
    return html + tag


# Mail providers' image proxies fetch the pixel when the reader opens the message: real opens,
# but not direct ones (our reading of opens_direct, which the interface does not define).
_IMAGE_PROXIES = re.compile(r"GoogleImageProxy|YahooMailProxy|Outlook-iOS|ggpht\.com", re.IGNORECASE)


def via_image_proxy(user_agent: str | None) -> bool:
    return bool(user_agent and _IMAGE_PROXIES.search(user_agent))


TRACK_PATH = "/v3/track"


@dataclass(frozen=True)
class LinkMaker:
    """The tracking URLs put into a recipient's copy, under the API's public base URL."""

    base_url: str
    secret: bytes

    def _url(self, action: str, token: TrackToken) -> str:
        return f"{self.base_url.rstrip('/')}{TRACK_PATH}/{action}/{sign_token(token, self.secret)}"

    def open_url(self, account_id: str, message_id: str, recipient: str) -> str:
        return self._url(
            "open", TrackToken(kind=TrackKind.OPEN, account_id=account_id, message_id=message_id, recipient=recipient)
        )

    def click_url(self, account_id: str, message_id: str, recipient: str, url: str) -> str:
        return self._url(
            "click",
            TrackToken(
                kind=TrackKind.CLICK, account_id=account_id, message_id=message_id, recipient=recipient, url=url
            ),
        )

    def unsubscribe_url(self, account_id: str, message_id: str, recipient: str) -> str:
        return self._url(
            "unsubscribe",
            TrackToken(kind=TrackKind.UNSUBSCRIBE, account_id=account_id, message_id=message_id, recipient=recipient),
        )
