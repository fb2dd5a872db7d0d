"""Open and click tracking and one-click unsubscribe: signed tokens, link wrapping, bots."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from postline.tracking.domain import (
    LinkMaker,
    TrackKind,
    TrackToken,
    Visitor,
    add_pixel,
    is_bot,
    read_token,
    redirect_target,
    sign_token,
    via_image_proxy,
    wrap_links,
)

SECRET = b"s" * 32
OTHER_SECRET = b"o" * 32
CLICK = TrackToken(
    kind=TrackKind.CLICK, account_id="acct_1", message_id="msg_1", recipient="ann@example.com", url="https://x.example/"
)
OPEN = TrackToken(kind=TrackKind.OPEN, account_id="acct_1", message_id="msg_1", recipient="ann@example.com")
CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
)
IPHONE_MAIL = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
)
GMAIL_PROXY = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed(body: bytes, secret: bytes = SECRET) -> str:
    return f"{b64(body)}.{b64(hmac.new(secret, body, hashlib.sha256).digest()[:16])}"


def tracked(url: str) -> str:
    return f"https://t.example/c?u={url}"


# --- tokens -------------------------------------------------------------------------------------


@pytest.mark.parametrize("token", [CLICK, OPEN], ids=["click", "open"])
def test_a_signed_token_reads_back(token: TrackToken) -> None:
    assert read_token(sign_token(token, SECRET), SECRET, token.kind) == token


def test_a_token_is_url_safe() -> None:
    text = sign_token(CLICK.model_copy(update={"url": "https://x.example/?a=1&b=~+/"}), SECRET)
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")


def test_signing_is_deterministic() -> None:
    assert sign_token(CLICK, SECRET) == sign_token(CLICK, SECRET)


def test_a_token_of_another_kind_is_refused() -> None:
    assert read_token(sign_token(OPEN, SECRET), SECRET, TrackKind.CLICK) is None
    assert read_token(sign_token(CLICK, SECRET), SECRET, TrackKind.UNSUBSCRIBE) is None


def test_a_token_signed_with_another_secret_is_refused() -> None:
    assert read_token(sign_token(CLICK, OTHER_SECRET), SECRET, TrackKind.CLICK) is None


def test_a_token_with_a_changed_body_is_refused() -> None:
    _, signature = sign_token(CLICK, SECRET).split(".")
    forged = json.dumps({**CLICK.model_dump(mode="json"), "url": "https://evil.example/"}, separators=(",", ":"))
    assert read_token(f"{b64(forged.encode())}.{signature}", SECRET, TrackKind.CLICK) is None


def test_a_token_with_a_changed_signature_is_refused() -> None:
    body, signature = sign_token(CLICK, SECRET).split(".")
    flipped = ("B" if signature[0] == "A" else "A") + signature[1:]
    assert read_token(f"{body}.{flipped}", SECRET, TrackKind.CLICK) is None
    assert read_token(f"{body}.{signature[:-2]}", SECRET, TrackKind.CLICK) is None
    assert read_token(f"{body}.", SECRET, TrackKind.CLICK) is None
    assert read_token(body, SECRET, TrackKind.CLICK) is None


@pytest.mark.parametrize("garbage", ["", ".", "..", "abc", "abc.def", "a.b.c", "é.é", "%%%.%%%", "eyJ9.x"])
def test_garbage_is_refused(garbage: str) -> None:
    assert read_token(garbage, SECRET, TrackKind.CLICK) is None


@pytest.mark.parametrize("body", [b"not json", b"[1,2]", b'{"kind":"c"}', b'{"kind":"zz","account_id":"a"}'])
def test_a_well_signed_body_that_is_not_a_token_is_refused(body: bytes) -> None:
    assert read_token(signed(body), SECRET, TrackKind.CLICK) is None


# --- link wrapping ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "wrapped"),
    [
        ('<a href="https://x.example/p">x</a>', '<a href="https://t.example/c?u=https://x.example/p">x</a>'),
        ("<a href='http://x.example/p'>x</a>", "<a href='https://t.example/c?u=http://x.example/p'>x</a>"),
        ('<a class="btn" href="https://x.example">', '<a class="btn" href="https://t.example/c?u=https://x.example">'),
        ('<A HREF="HTTPS://X.example">', '<A HREF="https://t.example/c?u=HTTPS://X.example">'),
        ('<a href = "https://x.example/">', '<a href = "https://t.example/c?u=https://x.example/">'),
        ('<a\n  href="https://x.example/">', '<a\n  href="https://t.example/c?u=https://x.example/">'),
    ],
)
def test_http_links_of_anchors_are_wrapped_quoted_either_way(html: str, wrapped: str) -> None:
    assert wrap_links(html, tracked) == wrapped


def test_every_link_is_wrapped() -> None:
    html = '<a href="https://a.example">1</a> and <a href="https://b.example">2</a>'
    seen: list[str] = []
    wrap_links(html, lambda url: seen.append(url) or url)
    assert seen == ["https://a.example", "https://b.example"]


def test_entities_are_unescaped_before_wrapping_and_the_result_is_escaped() -> None:
    seen: list[str] = []

    def wrap(url: str) -> str:
        seen.append(url)
        return f"https://t.example/c?u=1&t={url}"

    html = wrap_links('<a href="https://x.example/?a=1&amp;b=2">x</a>', wrap)
    assert seen == ["https://x.example/?a=1&b=2"]
    assert html == '<a href="https://t.example/c?u=1&amp;t=https://x.example/?a=1&amp;b=2">x</a>'


def test_the_wrapped_url_cannot_break_out_of_the_attribute() -> None:
    html = wrap_links('<a href="https://x.example/">x</a>', lambda url: url + '"><script>alert(1)</script>')
    assert "<script>" not in html
    assert "&quot;&gt;&lt;script&gt;" in html


@pytest.mark.parametrize(
    "html",
    [
        '<a href="mailto:ann@example.com">mail</a>',
        '<a href="tel:+15551234">call</a>',
        '<a href="#top">top</a>',
        '<a href="/relative">rel</a>',
        '<a href="ftp://files.example/f">ftp</a>',
        '<a name="https://x.example/">anchor</a>',
        '<link href="https://css.example/s.css" rel="stylesheet">',
        '<img src="https://img.example/a.png">',
        '<abbr href="https://x.example/">a</abbr>',
        "<p>https://x.example/ in text</p>",
    ],
)
def test_other_links_are_left_alone(html: str) -> None:
    assert wrap_links(html, tracked) == html


def test_only_the_href_attribute_is_wrapped() -> None:
    html = '<a data-href="https://d.example/" href="https://real.example/">x</a>'
    assert (
        wrap_links(html, tracked)
        == '<a data-href="https://d.example/" href="https://t.example/c?u=https://real.example/">x</a>'
    )


def test_a_double_quoted_href_with_an_apostrophe_is_wrapped() -> None:
    html = wrap_links('<a href="https://x.example/it\'s">x</a>', tracked)
    assert html == '<a href="https://t.example/c?u=https://x.example/it&#x27;s">x</a>'


# --- the open pixel -----------------------------------------------------------------------------

PIXEL = '<img src="https://t.example/o" width="1" height="1" alt="" style="display:none" />'


def test_the_pixel_goes_just_before_the_closing_body() -> None:
    assert add_pixel("<html><body><p>hi</p></body></html>", "https://t.example/o") == (
        f"<html><body><p>hi</p>{PIXEL}</body></html>"
    )


def test_the_closing_body_is_found_in_any_case_and_spacing() -> None:
    assert add_pixel("<p>hi</p></BODY ></html>", "https://t.example/o") == f"<p>hi</p>{PIXEL}</BODY ></html>"


def test_without_a_body_the_pixel_is_appended() -> None:
    assert add_pixel("<p>hi</p>", "https://t.example/o") == f"<p>hi</p>{PIXEL}"


def test_the_pixel_url_is_html_escaped() -> None:
    assert 'src="https://t.example/o?a=1&amp;b=&quot;2&quot;"' in add_pixel("", 'https://t.example/o?a=1&b="2"')


# --- bots and proxies ---------------------------------------------------------------------------


@pytest.mark.parametrize("user_agent", [None, "", "   "])
def test_no_user_agent_is_a_bot(user_agent: str | None) -> None:
    assert is_bot(user_agent)


@pytest.mark.parametrize(
    "user_agent",
    [
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Mozilla/5.0 (compatible; bingbot/2.0)",
        "Barracuda Sentinel (EE)",
        "Mimecast URL Protect",
        "Proofpoint URL Defense",
        "Microsoft Office SafeLinks",
        "python-requests/2.31.0",
        "curl/8.4.0",
        "Wget/1.21",
        "Go-http-client/1.1",
        "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/120.0.0.0",
        "Slackbot-LinkExpanding 1.0",
        "facebookexternalhit/1.1",
    ],
)
def test_scanners_and_tools_are_bots(user_agent: str) -> None:
    assert is_bot(user_agent)


@pytest.mark.parametrize("purpose", ["prefetch", "Prefetch", "preview"])
def test_a_prefetch_is_a_bot_even_from_a_browser(purpose: str) -> None:
    assert is_bot(CHROME, purpose)


@pytest.mark.parametrize("user_agent", [CHROME, IPHONE_MAIL, GMAIL_PROXY])
def test_people_are_not_bots(user_agent: str) -> None:
    assert not is_bot(user_agent)
    assert not is_bot(user_agent, None)


@pytest.mark.parametrize("user_agent", [GMAIL_PROXY, "YahooMailProxy; https://help.yahoo.com", "Outlook-iOS/709"])
def test_image_proxies_are_recognized(user_agent: str) -> None:
    assert via_image_proxy(user_agent)


@pytest.mark.parametrize("user_agent", [CHROME, IPHONE_MAIL, None, ""])
def test_browsers_are_not_image_proxies(user_agent: str | None) -> None:
    assert not via_image_proxy(user_agent)


# --- tracking URLs ------------------------------------------------------------------------------


@pytest.mark.parametrize("base_url", ["https://api.postline.dev", "https://api.postline.dev/"])
def test_tracking_urls_live_under_the_base_url(base_url: str) -> None:
    maker = LinkMaker(base_url, SECRET)
    assert maker.open_url("acct_1", "msg_1", "ann@example.com").startswith("https://api.postline.dev/v3/track/open/")
    assert maker.click_url("acct_1", "msg_1", "ann@example.com", "https://x.example/").startswith(
        "https://api.postline.dev/v3/track/click/"
    )
    assert maker.unsubscribe_url("acct_1", "msg_1", "ann@example.com").startswith(
        "https://api.postline.dev/v3/track/unsubscribe/"
    )


def _token_of(url: str) -> str:
    return url.rsplit("/", 1)[1]


def test_the_open_url_carries_an_open_token() -> None:
    url = LinkMaker("https://api.postline.dev", SECRET).open_url("acct_1", "msg_1", "ann@example.com")
    assert read_token(_token_of(url), SECRET, TrackKind.OPEN) == OPEN


def test_the_click_url_carries_the_original_link() -> None:
    url = LinkMaker("https://api.postline.dev", SECRET).click_url(
        "acct_1", "msg_1", "ann@example.com", "https://x.example/"
    )
    assert read_token(_token_of(url), SECRET, TrackKind.CLICK) == CLICK


def test_the_unsubscribe_url_carries_an_unsubscribe_token() -> None:
    url = LinkMaker("https://api.postline.dev", SECRET).unsubscribe_url("acct_1", "msg_1", "ann@example.com")
    token = read_token(_token_of(url), SECRET, TrackKind.UNSUBSCRIBE)
    assert token is not None
    assert (token.account_id, token.message_id, token.recipient, token.url) == (
        "acct_1",
        "msg_1",
        "ann@example.com",
        None,
    )
    assert read_token(_token_of(url), SECRET, TrackKind.OPEN) is None


@pytest.mark.parametrize("header", ["Purpose", "Sec-Purpose", "X-Moz"])
def test_a_request_that_says_it_is_a_prefetch_is_a_bot_visitor(header: str) -> None:
    headers = {"user-agent": CHROME, header.lower(): "prefetch"}
    visitor = Visitor.of_request(headers, "192.0.2.1")
    assert (visitor.purpose, visitor.ip, visitor.is_bot) == ("prefetch", "192.0.2.1", True)


def test_a_plain_browser_request_is_a_person() -> None:
    visitor = Visitor.of_request({"user-agent": CHROME}, None)
    assert (visitor.user_agent, visitor.purpose, visitor.is_bot) == (CHROME, None, False)


# -- links with control characters --------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("https://a.example/x?y=1", "https://a.example/x?y=1"),
        ("https://a.example/x\r\nSet-Cookie: s=1", "https://a.example/xSet-Cookie:%20s=1"),
        ("\x00 https://a.example/\tx \x1f", "https://a.example/x"),
        ("https://a.example/a b", "https://a.example/a%20b"),
        ("https://a.example/a\x00b", None),
        ("https://a.example/a\x7fb", None),
        ("https://a.example/a\u2028b", None),
        ("https://a.example/a\x85b", None),
        ("javascript:alert(1)", None),
        ("https:///no-host", None),
        ("http://[::1/unclosed", None),
    ],
)
def test_a_redirect_target_is_what_a_browser_would_follow_or_none(url: str, target: str | None) -> None:
    assert redirect_target(url) == target


def test_links_that_cannot_be_redirected_to_are_left_as_they_are() -> None:
    html = (
        '<a href="https://a.example/ok">1</a><a href="https://a.example/x&#13;&#10;y">2</a>'
        '<a href="https://a.example/bell\x07ring">3</a><a href="https://a.example/s&#x2028;p">4</a>'
    )
    wrapped = wrap_links(html, lambda url: f"https://t.example/c?u={url}")
    assert wrapped == (
        '<a href="https://t.example/c?u=https://a.example/ok">1</a>'
        '<a href="https://t.example/c?u=https://a.example/xy">2</a>'
        '<a href="https://a.example/bell\x07ring">3</a><a href="https://a.example/s&#x2028;p">4</a>'
    )
