"""RFC 8460's rules without I/O: the `_smtp._tls` record, result types, the report's shape and file name."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, date, datetime

import pytest

from postline.delivery.tls_sessions import NO_POLICY, AppliedPolicy, PolicyType, ResultType, classify_verify_code
from postline.tlsrpt.domain import (
    Tally,
    attachment_name,
    build_report,
    compress,
    dkim_record,
    mailto_address,
    parse_record,
    published_key,
    report_selector,
)

DAY = date(2026, 3, 1)  # a report's content depends on its day only: no clock is read
STS = AppliedPolicy(
    PolicyType.STS, ("version: STSv1", "mode: enforce", "mx: *.mx.example", "max_age: 86400"), ("*.mx.example",)
)


@pytest.mark.parametrize(
    ("records", "rua"),
    [
        (["v=TLSRPTv1; rua=mailto:tls@example.com"], ("mailto:tls@example.com",)),
        (
            ["v=TLSRPTv1;rua=mailto:a@example.com,https://r.example/v1"],
            ("mailto:a@example.com", "https://r.example/v1"),
        ),
        (["v=TLSRPTv1; rua=https://r.example/v1, http://insecure.example, ftp://x"], ("https://r.example/v1",)),
        (["v=spf1 -all", "v=TLSRPTv1; rua=mailto:tls@example.com"], ("mailto:tls@example.com",)),
        (["v=TLSRPTv1; rua=mailto:a@example.com", "v=TLSRPTv1; rua=mailto:b@example.com"], ()),  # two: none
        (["v=TLSRPTv2; rua=mailto:a@example.com"], ()),
        (["v=TLSRPTv1"], ()),
        ([], ()),
    ],
)
def test_the_record_names_the_reporting_uris(records: list[str], rua: tuple[str, ...]) -> None:
    assert parse_record(records) == rua


def test_a_mailto_uri_gives_its_address() -> None:
    assert mailto_address("mailto:tls%2Breports@example.com?subject=x") == "tls+reports@example.com"


@pytest.mark.parametrize(
    ("code", "result"),
    [
        (10, ResultType.CERTIFICATE_EXPIRED),
        (62, ResultType.CERTIFICATE_HOST_MISMATCH),
        (18, ResultType.CERTIFICATE_NOT_TRUSTED),  # self-signed
        (20, ResultType.CERTIFICATE_NOT_TRUSTED),  # unknown issuer
        (7, ResultType.VALIDATION_FAILURE),  # a bad signature
        (None, ResultType.VALIDATION_FAILURE),  # not a certificate fault
    ],
)
def test_openssl_verify_codes_map_to_result_types(code: int | None, result: ResultType) -> None:
    assert classify_verify_code(code) is result


def test_the_report_groups_by_policy_and_counts_sessions() -> None:
    tallies = [
        Tally(STS, None, "a.mx.example", "192.0.2.1", 40),
        Tally(STS, None, "b.mx.example", "192.0.2.2", 2),
        Tally(STS, ResultType.CERTIFICATE_EXPIRED, "b.mx.example", "192.0.2.2", 3),
        Tally(STS, ResultType.STARTTLS_NOT_SUPPORTED, "c.mx.example", "192.0.2.3", 5),
        Tally(NO_POLICY, ResultType.STS_POLICY_FETCH_ERROR, "a.mx.example", "192.0.2.1", 1),
    ]
    report = build_report(
        organization="Postline",
        contact="tls@postline.example",
        submitter="postline.example",
        domain="example.com",
        day=DAY,
        tallies=tallies,
    )
    assert report == {
        "organization-name": "Postline",
        "date-range": {"start-datetime": "2026-03-01T00:00:00Z", "end-datetime": "2026-03-01T23:59:59Z"},
        "contact-info": "tls@postline.example",
        "report-id": "2026-03-01T00:00:00Z_example.com@postline.example",
        "policies": [
            {
                "policy": {"policy-type": "no-policy-found", "policy-domain": "example.com"},
                "summary": {"total-successful-session-count": 0, "total-failure-session-count": 1},
                "failure-details": [
                    {
                        "result-type": "sts-policy-fetch-error",
                        "receiving-mx-hostname": "a.mx.example",
                        "receiving-ip": "192.0.2.1",
                        "failed-session-count": 1,
                    }
                ],
            },
            {
                "policy": {
                    "policy-type": "sts",
                    "policy-domain": "example.com",
                    "policy-string": list(STS.lines),
                    "mx-host": ["*.mx.example"],
                },
                "summary": {"total-successful-session-count": 42, "total-failure-session-count": 8},
                "failure-details": [  # the largest counts first
                    {
                        "result-type": "starttls-not-supported",
                        "receiving-mx-hostname": "c.mx.example",
                        "receiving-ip": "192.0.2.3",
                        "failed-session-count": 5,
                    },
                    {
                        "result-type": "certificate-expired",
                        "receiving-mx-hostname": "b.mx.example",
                        "receiving-ip": "192.0.2.2",
                        "failed-session-count": 3,
                    },
                ],
            },
        ],
    }
    body = compress(report)
    assert json.loads(gzip.decompress(body)) == report
    assert compress(report) == body  # the same report is the same bytes


def test_the_attachment_is_named_as_section_5_3_says() -> None:
    start = int(datetime(2026, 3, 1, tzinfo=UTC).timestamp())
    assert attachment_name("postline.example", "example.com", DAY) == (
        f"postline.example!example.com!{start}!{start + 86_399}.json.gz"
    )


def test_a_policy_key_follows_its_text() -> None:
    assert STS.key == AppliedPolicy(PolicyType.STS, STS.lines, STS.mx).key
    assert STS.key != NO_POLICY.key


def test_failure_details_name_the_sending_ip_when_there_is_one() -> None:
    tallies = [Tally(NO_POLICY, ResultType.STARTTLS_NOT_SUPPORTED, "mx.example", "192.0.2.9", 1)]
    report = build_report(
        organization="P",
        contact="tls@p.example",
        submitter="p.example",
        domain="example.com",
        day=DAY,
        tallies=tallies,
        sending_ip="203.0.113.7",
    )
    [policy] = report["policies"]  # type: ignore[misc]
    assert policy["failure-details"][0]["sending-mta-ip"] == "203.0.113.7"


def test_the_report_key_record_is_for_tls_reports_only() -> None:
    assert dkim_record("MIIBIj") == "v=DKIM1; k=rsa; s=tlsrpt; p=MIIBIj"
    assert report_selector(datetime(2026, 3, 1, 12, tzinfo=UTC), "a1b2") == "tlsrpt20260301-a1b2"


@pytest.mark.parametrize(
    ("texts", "found"),
    [
        (["v=DKIM1; k=rsa; s=tlsrpt; p=MIIBIj"], True),
        (["v=DKIM1;k=rsa;p=MIIB Ij"], True),  # whitespace inside a tag value is ignored (RFC 6376 3.6.1)
        (["p=MIIBIj"], True),  # v= is optional
        (["v=DKIM1; k=rsa; p=OTHER"], False),
        (["v=DKIM1; p="], False),  # a revoked key
        (["v=DKIM2; p=MIIBIj"], False),
        ([], False),
    ],
)
def test_a_staged_key_counts_as_published_only_when_dns_serves_its_public_half(texts: list[str], found: bool) -> None:
    assert published_key(texts, "MIIBIj") is found
