"""Where webhooks may go: address classification (domain) and the resolving guard (adapter)."""

from __future__ import annotations

import pytest

from postline.shared.errors import ValidationFailed
from postline.webhooks.domain import address_refusal, url_target
from postline.webhooks.url_guard import ResolvingUrlGuard

REFUSED = {
    "0.0.0.0": "unspecified",  # noqa: S104 (an address to refuse, not one to bind)
    "127.0.0.1": "loopback",
    "127.8.9.10": "loopback",
    "10.0.0.1": "private",
    "172.16.5.4": "private",
    "192.168.1.1": "private",
    "169.254.169.254": "link-local",  # cloud metadata
    "100.64.0.1": "not globally routable",  # carrier-grade NAT
    "224.0.0.251": "multicast",
    "240.0.0.1": "reserved",
    "255.255.255.255": "reserved",  # broadcast
    "192.0.2.10": "private",  # documentation
    "198.18.0.1": "private",  # benchmarking
    "::": "unspecified",
    "::1": "loopback",
    "fe80::1": "link-local",
    "fc00::1": "private",
    "fd12:3456::1": "private",
    "ff02::1": "multicast",
    "2001:db8::1": "private",  # documentation
    "::ffff:127.0.0.1": "loopback (IPv4 inside IPv6)",
    "::ffff:10.1.2.3": "private (IPv4 inside IPv6)",
    "::ffff:169.254.169.254": "link-local (IPv4 inside IPv6)",
    "2002:c0a8:0101::1": "private (IPv4 inside IPv6)",  # 6to4 of 192.168.1.1
    "64:ff9b::7f00:1": "loopback (IPv4 inside IPv6)",  # NAT64 of 127.0.0.1
}
PUBLIC = ["8.8.8.8", "93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8",
          "64:ff9b::808:808"]  # fmt: skip


@pytest.mark.parametrize(("address", "reason"), REFUSED.items())
def test_non_public_addresses_are_refused_with_their_reason(address: str, reason: str) -> None:
    assert address_refusal(address) == reason


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert address_refusal(address) is None


def test_url_targets_name_scheme_host_and_port() -> None:
    assert url_target("https://Hooks.Example.com/in?x=1").host == "hooks.example.com"
    assert url_target("https://hooks.example.com/").port == 443
    assert url_target("http://hooks.example.com/").port == 80
    target = url_target("https://[2606:4700::1111]:8443/in")
    assert (target.scheme, target.host, target.port) == ("https", "2606:4700::1111", 8443)


class FakeDns:
    def __init__(self, records: dict[str, list[str]]) -> None:
        self.records = records
        self.asked: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append((host, port))
        if host not in self.records:
            raise OSError("Name or service not known")
        return self.records[host]


DNS = {
    "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "internal.example.com": ["10.0.0.7"],
    "sneaky.example.com": ["93.184.215.14", "127.0.0.1"],
    "mapped.example.com": ["::ffff:192.168.0.1"],
    "2130706433": ["127.0.0.1"],  # what getaddrinfo makes of a decimal IPv4 literal
}


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
    ],
)
def test_a_webhook_url_on_a_send_is_refused_without_a_lookup(url: str, message: str) -> None:
    guard, dns = strict()
    with pytest.raises(ValidationFailed, match=f"webhook_url: .*{message}"):
        guard.check_without_dns(url)
    guard.check_without_dns("https://internal.example.com/in")  # names wait for the attempt's check
    assert dns.asked == []
    ResolvingUrlGuard(allow_private=True, resolve=dns).check_without_dns(url)
