"""MTA-STS (RFC 8461) records and policies: what counts as one, and which MX hosts a policy lists."""

from __future__ import annotations

import pytest

from postline.delivery.mta_sts import Mode, Policy, PolicyError, parse_policy, record_id

POLICY = "version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\nmx: *.example.net\r\nmax_age: 604800\r\n"


def test_a_policy_parses_with_every_mx_pattern() -> None:
    assert parse_policy(POLICY) == Policy(Mode.ENFORCE, ("mail.example.com", "*.example.net"), 604800)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        (POLICY.replace("STSv1", "STSv2"), "version"),
        (POLICY.replace("enforce", "strict"), "mode"),
        (POLICY.replace("604800", "31557601"), "max_age"),
        (POLICY.replace("604800", "soon"), "max_age"),
        ("version: STSv1\nmode: enforce\nmax_age: 60\n", "no mx"),
        (POLICY + "garbage\n", "not a policy line"),
    ],
)
def test_a_policy_that_breaks_the_rfc_is_refused(text: str, complaint: str) -> None:
    with pytest.raises(PolicyError, match=complaint):
        parse_policy(text)


def test_mode_none_needs_no_mx() -> None:
    assert parse_policy("version: STSv1\nmode: none\nmax_age: 86400\n").mode is Mode.NONE


@pytest.mark.parametrize(
    ("host", "listed"),
    [
        ("mail.example.com", True),
        ("MAIL.example.com.", True),
        ("other.example.com", False),
        ("mx1.example.net", True),
        ("a.b.example.net", False),  # a wildcard is one leftmost label only
        ("example.net", False),
    ],
)
def test_mx_matching_follows_section_4_1(host: str, listed: bool) -> None:
    assert parse_policy(POLICY).matches(host) is listed


@pytest.mark.parametrize(
    ("texts", "identifier"),
    [
        (["v=STSv1; id=20261124T000000"], "20261124T000000"),
        (["v=spf1 -all", "v=STSv1;id=abc123;"], "abc123"),
        (["v=STSv1; id=a", "v=STSv1; id=b"], None),  # two records: none (section 3.1)
        (["v=STSv1; id=not-alnum"], None),
        (["v=STSv1"], None),
        ([], None),
    ],
)
def test_the_record_gives_its_id_only_when_there_is_exactly_one_valid_record(
    texts: list[str], identifier: str | None
) -> None:
    assert record_id(texts) == identifier
