"""Uploads' pure rules: safe filenames and Content-Disposition, types served, the hosted link's token,
sniffing; the scanner rule set clicks and downloads share; an upload's link in a message is wrapped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from postline.shared.scanners import Visitor, delivery_of, with_delivery
from postline.tracking.domain import LinkMaker, TrackKind, read_token, wrap_links
from postline.uploads.domain import (
    content_disposition,
    download_token,
    hosted_url,
    read_download_token,
    safe_filename,
    served_type,
)
from postline.uploads.sniffing import sniff

CHROME = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15"
)


@pytest.mark.parametrize(
    ("given", "safe"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\me\\q3.xlsx", "q3.xlsx"),
        ('a"b;c.txt', "a_b_c.txt"),
        ("in\u202egnp.exe", "ingnp.exe"),  # a right-to-left override would show it as ...exe.png
        ("...hidden", "hidden"),
        ("\r\n", "file"),
        ("Café  menü.pdf", "Café menü.pdf"),
        ("x" * 300 + ".pdf", "x" * 251 + ".pdf"),
    ],
)
def test_safe_filenames(given: str, safe: str) -> None:
    assert safe_filename(given) == safe


def test_content_disposition_is_always_an_attachment_with_an_ascii_fallback() -> None:
    assert content_disposition('Café "menü".pdf') == (
        "attachment; filename=\"Caf_ _men__.pdf\"; filename*=UTF-8''Caf%C3%A9%20_men%C3%BC_.pdf"
    )


def test_active_types_are_served_as_bytes() -> None:
    for active in ("text/html", "image/svg+xml", "application/xhtml+xml", "text/xml", "application/javascript"):
        assert served_type(active) == "application/octet-stream"
    assert served_type("application/pdf") == "application/pdf" and served_type("image/png") == "image/png"


def test_sniffing_believes_bytes_not_names() -> None:
    assert sniff(b"%PDF-1.7\n%...") == "application/pdf"
    assert sniff(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32) == "image/png"
    assert sniff(b'<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>') == "image/svg+xml"
    assert sniff(b"<!DOCTYPE html><html>") == "text/html"
    assert sniff(b"PK\x03\x04" + b"\x00" * 60) == "application/zip"  # not one of the formats built on ZIP
    assert sniff("plain words, caf\u00e9".encode()[:-1]) == "text/plain"  # cut inside a character
    assert sniff(b"\x00\x01\x02\x03") == "application/octet-stream" == sniff(b"")


def test_the_hosted_links_token_names_its_upload_and_cannot_be_forged() -> None:
    token = download_token("acct_1", "up_abc", b"secret")
    assert read_download_token(token, b"secret") == ("acct_1", "up_abc")
    assert read_download_token(token, b"other") is None
    assert read_download_token(token.replace("up_abc", "up_abd"), b"secret") is None
    assert read_download_token("acct_1.tpl_x." + token.rsplit(".", 1)[1], b"secret") is None
    assert hosted_url("t.acme.test", "acct_1", "up_abc", b"secret") == f"https://t.acme.test/v3/track/download/{token}"


def test_the_scanner_rules_in_order() -> None:
    now = datetime(2026, 11, 28, tzinfo=UTC)
    person = Visitor(user_agent=CHROME, purpose=None, ip="198.51.100.7")
    assert person.scanner_reason(delivered_at=now - timedelta(minutes=5), now=now) is None
    assert person.scanner_reason() is None
    assert Visitor(CHROME, None, "198.51.100.7", "HEAD").scanner_reason() == "head"
    assert Visitor(CHROME, "prefetch;prerender", None).scanner_reason() == "purpose"
    assert Visitor("Mozilla/5.0 (compatible; Mimecast)", None, None).scanner_reason() == "user_agent"
    assert Visitor("", None, None).scanner_reason() == "user_agent"
    assert Visitor(CHROME, None, "205.139.110.20").scanner_reason() == "network"
    assert Visitor(CHROME, None, "not an address").scanner_reason() is None
    assert Visitor(CHROME, None, "207.211.30.9").is_bot and not person.is_bot  # opens and clicks: rules 1-4
    assert person.scanner_reason(delivered_at=now - timedelta(seconds=3), now=now) == "too_soon"
    assert Visitor.of_request({"user-agent": CHROME, "sec-purpose": "prefetch"}, "192.0.2.1", "get").method == "GET"


def test_a_click_redirect_to_a_hosted_link_carries_the_messages_delivery() -> None:
    delivered = datetime(2026, 11, 28, 9, 30, tzinfo=UTC)
    link = hosted_url("t.acme.test", "acct_1", "up_abc", b"secret")
    carried = with_delivery(link, delivered)
    assert carried == f"{link}?delivered={int(delivered.timestamp())}"
    assert delivery_of(carried.rsplit("=", 1)[1]) == delivered
    assert with_delivery("https://shop.example/a", delivered) == "https://shop.example/a"  # not ours: as it was
    assert with_delivery(link, None) == link
    assert delivery_of("soon") is None and delivery_of(None) is None and delivery_of("9" * 30) is None


def test_an_uploads_link_in_a_message_is_wrapped_and_tracked_like_any_link() -> None:
    link = hosted_url("t.acme.test", "acct_1", "up_abc", b"secret")
    maker = LinkMaker("https://t.acme.test", b"tracking")
    html = wrap_links(f'<a href="{link}">the file</a>', lambda url: maker.click_url("acct_1", "msg_1", "r@x.test", url))
    wrapped = html.split('"')[1]
    assert wrapped.startswith("https://t.acme.test/v3/track/click/")
    claims = read_token(wrapped.rsplit("/", 1)[1], b"tracking", TrackKind.CLICK)
    assert (
        claims is not None and claims.url == link
    )  # the click redirects to the hosted link, which counts the download
