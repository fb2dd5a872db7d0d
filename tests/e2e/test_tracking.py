"""Opens, clicks and one-click unsubscribes through the links in a delivered email, over HTTP with
no API key (functions/api/tracking.py), and what they record."""

from __future__ import annotations

import http.client
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from postline.shared.scanners import TOO_SOON
from postline.tracking.domain import TrackKind, read_token, sign_token
from postline.wiring import tracking
from tests.e2e.sending_support import (
    accepted,
    body_of,
    drain,
    events_of,
    has_types,
    mail_for,
    message,
    recipient,
    settle,
    types_of,
    unverified_sender,
)
from tests.e2e.support import Api, assert_error

pytestmark = pytest.mark.e2e

BROWSER = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
)
LINK = "https://shop.example.com/orders/42?utm_source=mail&utm_medium=email"
HTML = f'<html><body><p>Your order shipped.</p><a href="{LINK.replace("&", "&amp;")}">Track it</a></body></html>'


@dataclass
class Delivered:
    message_id: str
    to: str
    pixel: str
    click: str
    unsubscribe: str


def deliver(api: Api, runtime: Any, to: str | None = None, *, read_later: bool = True) -> Delivered:
    """A live send from the dev account, delivered to the mail sink; its tracking links. `read_later`:
    the runtime's clock then moves past the scanner rule's window (a click within seconds of delivery
    is a scanner's, shared/scanners.py TOO_SOON), as a person reads it a little later."""
    to = to or recipient("reader")
    sender = f"Shop <orders@{runtime.dev['sending_domain']['domain']}>"
    sent = accepted(api.post("/v3/messages", json=message(sender, to, subject="Shipped", html=HTML, tags=["shipping"])))
    settle(runtime, sent["id"])
    (copy,) = mail_for(runtime, sent["id"])
    html = body_of(copy, "html") or ""
    (click,) = re.findall(r'href="([^"]+/v3/track/click/[^"]+)"', html)
    (pixel,) = re.findall(r'<img src="([^"]+/v3/track/open/[^"]+)"', html)
    if read_later:
        runtime.advance(TOO_SOON.total_seconds())
    return Delivered(sent["id"], to, pixel, click, copy["headers"]["List-Unsubscribe"].strip("<>"))


@pytest.fixture
def delivered(api: Api, runtime: Any) -> Delivered:
    return deliver(api, runtime)


def visit(url: str, **headers: str) -> requests.Response:
    """A GET as a mail client makes it: no API key, no redirects followed."""
    return requests.get(url, headers={"User-Agent": BROWSER, **headers}, allow_redirects=False, timeout=30)


def visit_without_user_agent(url: str) -> tuple[int, str]:
    """(status, content type) of a GET with no User-Agent at all (urllib3 would add its own)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=30)
    try:
        connection.request("GET", parts.path)
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("Content-Type") or ""
    finally:
        connection.close()


def of_type(message_id: str, kind: str) -> list[Any]:
    return [e for e in events_of(message_id) if e.type.value == kind]


def tampered(url: str) -> str:
    """The same link with the first character of the token's signature changed. (Not the last: of
    the last base64 character of 16 bytes only two bits count, so changing it may change nothing.)"""
    base, _, token = url.rpartition("/")
    body, _, signature = token.partition(".")
    first = "B" if signature[0] != "B" else "C"
    return f"{base}/{body}.{first}{signature[1:]}"


# -- opens ----------------------------------------------------------------------------------------


def test_a_browser_open_serves_the_pixel_and_records_the_first_open(
    delivered: Delivered, api: Api, runtime: Any
) -> None:
    response = visit(delivered.pixel)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "image/gif"
    assert response.content.startswith(b"GIF89a")
    assert "no-store" in response.headers["Cache-Control"]

    events_of(delivered.message_id, until=has_types("opened"))
    (opened,) = of_type(delivered.message_id, "opened")
    assert opened.recipient == delivered.to and opened.tags == ["shipping"]
    assert opened.data["user_agent"] == BROWSER and opened.data["via_proxy"] is False
    assert "test" not in opened.data
    first_open = api.get(f"/v3/messages/{delivered.message_id}").json()["opened_at"]
    assert first_open is not None

    runtime.advance(60)
    assert visit(delivered.pixel).status_code == 200
    events_of(delivered.message_id, until=lambda evs: types_of(evs).count("opened") == 2)
    assert len(of_type(delivered.message_id, "opened")) == 2  # every open is an event
    assert api.get(f"/v3/messages/{delivered.message_id}").json()["opened_at"] == first_open  # the first


@pytest.mark.parametrize(
    "headers",
    [
        {"User-Agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
        {"Purpose": "prefetch"},
        {"Sec-Purpose": "prefetch;prerender"},
        {"User-Agent": "Mozilla/5.0 (compatible; Barracuda Sentinel link scanner)"},
        {},
    ],
    ids=["googlebot", "purpose-prefetch", "sec-purpose-prefetch", "link-scanner", "no-user-agent"],
)
def test_bots_and_prefetchers_get_the_pixel_but_record_no_open(
    delivered: Delivered, api: Api, headers: dict[str, str]
) -> None:
    if headers:
        response = visit(delivered.pixel, **headers)
        assert (response.status_code, response.headers["Content-Type"]) == (200, "image/gif")
    else:
        assert visit_without_user_agent(delivered.pixel) == (200, "image/gif")
    assert api.get(f"/v3/messages/{delivered.message_id}").json()["opened_at"] is None
    # A person's open afterwards is the one and only open: the bot's was never written.
    assert visit(delivered.pixel).status_code == 200
    found = events_of(delivered.message_id, until=has_types("opened"))
    assert types_of(found).count("opened") == 1
    assert next(e for e in found if e.type.value == "opened").data["user_agent"] == BROWSER


def test_an_image_proxy_open_counts_and_is_marked(delivered: Delivered) -> None:
    proxy = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)"
    assert visit(delivered.pixel, **{"User-Agent": proxy}).status_code == 200
    events_of(delivered.message_id, until=has_types("opened"))
    (opened,) = of_type(delivered.message_id, "opened")
    assert opened.data["via_proxy"] is True


def test_a_tampered_pixel_still_serves_the_image_but_records_nothing(delivered: Delivered, api: Api) -> None:
    response = visit(tampered(delivered.pixel))
    assert response.status_code == 200 and response.headers["Content-Type"] == "image/gif"
    assert api.get(f"/v3/messages/{delivered.message_id}").json()["opened_at"] is None
    assert of_type(delivered.message_id, "opened") == []


# -- clicks ---------------------------------------------------------------------------------------


def test_a_click_redirects_to_the_original_link_and_records_it(delivered: Delivered, api: Api) -> None:
    response = visit(delivered.click)
    assert response.status_code == 302
    assert response.headers["Location"] == LINK
    assert "no-store" in response.headers["Cache-Control"]
    events_of(delivered.message_id, until=has_types("clicked"))
    (clicked,) = of_type(delivered.message_id, "clicked")
    assert clicked.recipient == delivered.to
    assert clicked.data["url"] == LINK and clicked.data["user_agent"] == BROWSER
    shown = api.get(f"/v3/messages/{delivered.message_id}").json()
    assert shown["clicked_at"] is not None
    assert datetime.fromisoformat(shown["clicked_at"]) >= datetime.fromisoformat(shown["delivered_at"])


def test_a_scanner_following_the_link_is_redirected_but_not_counted(delivered: Delivered, api: Api) -> None:
    response = visit(delivered.click, **{"User-Agent": "Mozilla/5.0 (compatible; Mimecast URL Protect)"})
    assert response.status_code == 302 and response.headers["Location"] == LINK
    assert api.get(f"/v3/messages/{delivered.message_id}").json()["clicked_at"] is None
    assert visit(delivered.click).status_code == 302
    assert types_of(events_of(delivered.message_id, until=has_types("clicked"))).count("clicked") == 1


def test_a_click_within_seconds_of_delivery_is_a_scanners_redirected_but_not_counted(api: Api, runtime: Any) -> None:
    delivered = deliver(api, runtime, read_later=False)  # a security gateway fetches it on arrival
    response = visit(delivered.click)  # even with a browser's user agent
    assert response.status_code == 302 and response.headers["Location"] == LINK
    assert api.get(f"/v3/messages/{delivered.message_id}").json()["clicked_at"] is None
    runtime.advance(TOO_SOON.total_seconds())  # the reader, a little later
    assert visit(delivered.click).status_code == 302
    assert types_of(events_of(delivered.message_id, until=has_types("clicked"))).count("clicked") == 1
    assert api.get(f"/v3/messages/{delivered.message_id}").json()["clicked_at"] is not None


def test_a_tampered_or_misused_click_token_is_not_found(delivered: Delivered) -> None:
    assert_error(visit(tampered(delivered.click)), 404, "not_found")
    open_token = delivered.pixel.rsplit("/", 1)[1]
    misused = delivered.click.rsplit("/", 1)[0] + "/" + open_token  # a valid token of another kind
    assert_error(visit(misused), 404, "not_found")
    assert of_type(delivered.message_id, "clicked") == []


# -- unsubscribe ----------------------------------------------------------------------------------


def one_click(url: str) -> requests.Response:
    """What a mail client sends for RFC 8058 List-Unsubscribe-Post."""
    return requests.post(
        url,
        data="List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded", "User-Agent": BROWSER},
        timeout=30,
    )


def test_one_click_unsubscribe_records_it_and_suppresses_the_address(
    delivered: Delivered, api: Api, runtime: Any
) -> None:
    response = one_click(delivered.unsubscribe)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/html")
    events_of(delivered.message_id, until=has_types("unsubscribed"))
    (unsubscribed,) = of_type(delivered.message_id, "unsubscribed")
    assert unsubscribed.recipient == delivered.to and unsubscribed.tags == ["shipping"]
    assert one_click(delivered.unsubscribe).status_code == 200  # repeated by the client: still one
    assert len(of_type(delivered.message_id, "unsubscribed")) == 1

    other = recipient("still-subscribed")
    sender = f"orders@{runtime.dev['sending_domain']['domain']}"
    again = accepted(api.post("/v3/messages", json=message(sender, delivered.to, other)))
    settle(runtime, again["id"])
    found = events_of(again["id"], until=has_types("rejected", "delivered"))
    assert types_of(found, delivered.to) == ["queued", "rejected"]
    assert types_of(found, other) == ["queued", "sent", "delivered"]
    assert [copy["rcpt_tos"] for copy in mail_for(runtime, again["id"])] == [[other]]
    assert api.get(f"/v3/messages/{again['id']}").json()["status"] == "delivered"


def test_the_unsubscribe_page_only_offers_the_button(delivered: Delivered, runtime: Any) -> None:
    """Mail scanners follow GETs: only the POST unsubscribes."""
    response = visit(delivered.unsubscribe)
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/html")
    assert '<form method="post"' in response.text
    drain(runtime)
    assert of_type(delivered.message_id, "unsubscribed") == []


def test_a_tampered_unsubscribe_link_is_not_found(delivered: Delivered) -> None:
    assert_error(one_click(tampered(delivered.unsubscribe)), 404, "not_found")
    assert of_type(delivered.message_id, "unsubscribed") == []


def test_unsubscribing_is_per_account(delivered: Delivered, runtime: Any) -> None:
    assert one_click(delivered.unsubscribe).status_code == 200
    # Another account still reaches the address (simulated, with its test key: no domain needed).
    other = unverified_sender(runtime)
    sent = accepted(other.test.post("/v3/messages", json=message(other.address, delivered.to)))
    assert settle(runtime, sent["id"]) == {sent["id"]: "delivered"}
    assert types_of(events_of(sent["id"], until=has_types("delivered"))) == ["queued", "sent", "delivered"]


# -- links with control characters ----------------------------------------------------------------

CONTROLLED = (
    '<p><a href="https://shop.example.com/a&#13;&#10;Set-Cookie: x=1">split</a>'
    '<a href="https://shop.example.com/bell\x07ring">bell</a>'
    '<a href="https://shop.example.com/sep&#x2028;arator">separator</a></p>'
)


def test_a_link_with_control_characters_is_normalised_or_left_alone_never_a_500(api: Api, runtime: Any) -> None:
    """CR/LF (entity-encoded here) are dropped as a browser drops them, and the result, a valid
    target, is wrapped; a control character or a line separator cannot be redirected to, so that
    link stays as it was. The redirect and the clicked event carry no control character."""
    to = recipient("reader")
    sender = f"Shop <orders@{runtime.dev['sending_domain']['domain']}>"
    sent = accepted(api.post("/v3/messages", json=message(sender, to, subject="Links", html=CONTROLLED)))
    settle(runtime, sent["id"])
    (copy,) = mail_for(runtime, sent["id"])
    html = body_of(copy, "html") or ""
    (click,) = re.findall(r'href="([^"]+/v3/track/click/[^"]+)"', html)
    assert 'href="https://shop.example.com/bell\x07ring"' in html
    assert 'href="https://shop.example.com/sep&#x2028;arator"' in html

    runtime.advance(TOO_SOON.total_seconds())  # a person's click, not a scanner's on delivery
    response = visit(click)
    assert response.status_code == 302
    assert response.headers["Location"] == "https://shop.example.com/aSet-Cookie:%20x=1"
    assert "x" not in response.cookies
    events_of(sent["id"], until=has_types("clicked"))
    (clicked,) = of_type(sent["id"], "clicked")
    assert clicked.data["url"] == "https://shop.example.com/aSet-Cookie:%20x=1"


def test_a_signed_link_with_control_characters_redirects_clean_or_is_not_found(delivered: Delivered) -> None:
    """A token signed before links were checked may carry CR/LF: the redirect drops them as a browser
    would (the Location header stays one clean line), and what cannot be made a target is refused like
    a bad token, never a 500."""
    base, _, token = delivered.click.rpartition("/")
    claims = read_token(token, tracking.tracking_secret()(), TrackKind.CLICK)
    assert claims is not None

    def with_url(url: str) -> requests.Response:
        return visit(f"{base}/{sign_token(claims.model_copy(update={'url': url}), tracking.tracking_secret()())}")

    split = with_url("https://shop.example.com/\r\nSet-Cookie: x=1\r\n")
    assert split.status_code == 302 and split.headers["Location"] == "https://shop.example.com/Set-Cookie:%20x=1"
    assert "x" not in split.cookies
    for url in ("https://shop.example.com/a\x00b", "https://shop.example.com/\u2028", "javascript:alert(1)"):
        assert_error(with_url(url), 404, "not_found")
