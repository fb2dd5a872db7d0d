"""Where webhooks may go: the URL's shape (domain) and the outbound address policy through the URL guard."""

from __future__ import annotations

import ipaddress
import re

import pytest

from postline.shared.errors import ValidationFailed
from postline.webhooks.domain import url_target
from postline.webhooks.url_guard import ResolvingUrlGuard
from tests.unit.egress.test_addresses import REFUSED
from tests.unit.egress.test_guard import DNS, FakeDns


@pytest.mark.parametrize(("address", "reason"), REFUSED.items())
def test_the_guard_refuses_every_non_public_address_of_the_policy(address: str, reason: str) -> None:
    """The webhook guard is the outbound address policy's (postline/egress): its cases, through a URL."""
    guard, dns = strict()
    host = f"[{address}]" if ":" in address else address
    with pytest.raises(
        ValidationFailed, match=re.escape(f"resolves to {ipaddress.ip_address(address)}, a {reason} address")
    ):
        guard.check(f"https://{host}/in")
    assert dns.asked == []


def test_url_targets_name_scheme_host_and_port() -> None:
    assert url_target("https://Hooks.Example.com/in?x=1").host == "hooks.example.com"
    assert url_target("https://hooks.example.com/").port == 443
    assert url_target("http://hooks.example.com/").port == 80
    target = url_target("https://[2606:4700::1111]:8443/in")
    assert (target.scheme, target.host, target.port) == ("https", "2606:4700::1111", 8443)


def strict() -> tuple[ResolvingUrlGuard, FakeDns]:
    dns = FakeDns(DNS)
    return ResolvingUrlGuard(allow_private=False, resolve=dns), dns


def test_a_public_https_host_passes_and_is_resolved_with_its_port() -> None:
    guard, dns = strict()
    guard.check("https://hooks.example.com:8443/postline?token=abc")
    assert dns.asked == [("hooks.example.com", 8443)]


def test_vet_returns_the_addresses_it_checked_for_the_client_to_connect_to() -> None:
    guard, _ = strict()
    assert guard.vet("https://hooks.example.com/in") == DNS["hooks.example.com"]
    assert guard.vet("https://[2606:4700:4700::1111]/in") == ["2606:4700:4700::1111"]
    assert ResolvingUrlGuard(allow_private=True, resolve=FakeDns({})).vet("http://127.0.0.1:1/") == []


def test_a_public_ip_literal_passes_without_dns() -> None:
    guard, dns = strict()
    guard.check("https://93.184.215.14/in")
    guard.check("https://[2606:4700:4700::1111]/in")
    assert dns.asked == []


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://hooks.example.com/in", "must use https"),
        ("https://internal.example.com/in", "resolves to 10.0.0.7, a private address"),
        ("https://sneaky.example.com/in", "127.0.0.1, a loopback address"),  # any one address refuses
        ("https://mapped.example.com/in", "IPv4 inside IPv6"),
        ("https://2130706433/in", "loopback"),
        ("https://127.0.0.1/in", "loopback"),
        ("https://[::1]/in", "loopback"),
        ("https://[::ffff:7f00:1]/in", "loopback"),
        ("https://169.254.169.254/latest/meta-data", "link-local"),
        ("https://nowhere.example.com/in", "does not resolve"),
        ("https://user:secret@hooks.example.com/in", "credentials"),
        ("gopher://hooks.example.com/in", "https://"),
    ],
)
def test_refused_urls_are_validation_errors(url: str, message: str) -> None:
    guard, _ = strict()
    with pytest.raises(ValidationFailed, match=message) as refused:
        guard.check(url)
    assert refused.value.status == 400 and refused.value.code == "validation_error"
    assert "secret" not in refused.value.message


def test_allowing_private_urls_allows_http_and_local_hosts_but_not_credentials() -> None:
    dns = FakeDns({})
    guard = ResolvingUrlGuard(allow_private=True, resolve=dns)
    for url in ("http://127.0.0.1:8080/hook", "https://internal.example.com/in", "http://[::1]:9000/"):
        guard.check(url)
    assert dns.asked == []
    with pytest.raises(ValidationFailed, match="credentials"):
        guard.check("http://u:p@127.0.0.1/")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://hooks.example.com/in", "must use https"),
        ("https://169.254.169.254/latest/meta-data", "link-local"),
        ("https://[::1]/in", "loopback"),
        ("https://10.1.2.3/in", "private"),
        ("https://0x7f.1/in", "127.0.0.1 is a loopback"),  # an IPv4 literal in another notation
        ("https://2130706433/in", "127.0.0.1 is a loopback"),
    ],
)
def test_a_webhook_url_on_a_send_is_refused_without_a_lookup(url: str, message: str) -> None:
    guard, dns = strict()
    with pytest.raises(ValidationFailed, match=f"webhook_url: .*{message}"):
        guard.check_without_dns(url)
    guard.check_without_dns("https://internal.example.com/in")  # names wait for the attempt's check
    assert dns.asked == []
    ResolvingUrlGuard(allow_private=True, resolve=dns).check_without_dns(url)
