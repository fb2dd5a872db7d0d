"""Suppression rules: address normalization, derived ids, the allowlist-only override, and how a bulk
request's entries are sorted into writes and skips (zero-based indexes, first occurrence wins)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from postline.shared.addresses import normalize_email
from postline.suppressions.domain import (
    SkipReason,
    SuppressionType,
    bulk_call_digest,
    new_suppression,
    sort_entries,
    suppression_id,
)
from postline.suppressions.models import BulkSuppressionDelete, BulkSuppressionRequest, SuppressionCreate

NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("Jane.Doe@Example.COM", "jane.doe@example.com"),
        ("  padded@example.com\n", "padded@example.com"),
        ("user+tag@sub.example.org", "user+tag@sub.example.org"),
        ("ÜNICODE@bücher.example", "ünicode@bücher.example"),
        ("dev@postline.test", "dev@postline.test"),  # RFC 6761 names are what development mails
    ],
)
def test_addresses_are_normalized_and_lowercased(given: str, stored: str) -> None:
    assert normalize_email(given) == stored


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "plain",
        "@example.com",
        "a@",
        "a@@example.com",
        "a b@example.com",
        "a@example..com",
        "é" * 33 + "@example.com",
    ],
)
def test_what_is_not_an_address_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a valid email address"):
        normalize_email(bad)


def test_ids_are_uuids_derived_from_account_type_and_address() -> None:
    one = suppression_id("acct_1", SuppressionType.BOUNCES, "a@example.com")
    assert one == suppression_id("acct_1", SuppressionType.BOUNCES, "a@example.com")
    assert len({
        one,
        suppression_id("acct_2", SuppressionType.BOUNCES, "a@example.com"),
        suppression_id("acct_1", SuppressionType.COMPLAINTS, "a@example.com"),
        suppression_id("acct_1", SuppressionType.BOUNCES, "b@example.com"),
    }) == 4  # fmt: skip
    assert new_suppression("acct_1", SuppressionType.BOUNCES, "a@example.com", NOW).id == one


def test_only_allowlist_entries_override_unsubscribes() -> None:
    entry = new_suppression("a", SuppressionType.ALLOWLIST, "x@example.com", NOW, override_unsubscribes=True)
    assert entry.override_unsubscribes
    with pytest.raises(ValueError, match="only for allowlist entries"):
        new_suppression("a", SuppressionType.BOUNCES, "x@example.com", NOW, override_unsubscribes=True)
    with pytest.raises(ValidationError):
        SuppressionCreate(type=SuppressionType.UNSUBSCRIBES, email="x@example.com", override_unsubscribes=True)
    with pytest.raises(ValidationError):
        BulkSuppressionRequest(
            type=SuppressionType.BOUNCES, entries=[{"email": "x@example.com"}], override_unsubscribes=True
        )  # type: ignore[list-item]


def test_bulk_entries_are_sorted_into_writes_and_skips_by_index() -> None:
    sorted_ = sort_entries(["a@example.com", "nope", "A@EXAMPLE.com", "b@example.com", " b@example.com", "c@x.example"])
    assert sorted_.accepted == [(0, "a@example.com"), (3, "b@example.com"), (5, "c@x.example")]
    assert [(s.index, s.email, s.reason) for s in sorted_.skipped] == [
        (1, "nope", SkipReason.INVALID_SYNTAX),
        (2, "A@EXAMPLE.com", SkipReason.DUPLICATE_IN_BATCH),
        (4, " b@example.com", SkipReason.DUPLICATE_IN_BATCH),
    ]


def test_a_bulk_call_holds_one_to_ten_thousand_entries() -> None:
    entries = [{"email": f"u{n}@example.com"} for n in range(10_001)]
    with pytest.raises(ValidationError):
        BulkSuppressionRequest(type=SuppressionType.BOUNCES, entries=entries)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        BulkSuppressionRequest(type=SuppressionType.BOUNCES, entries=[])
    with pytest.raises(ValidationError):
        BulkSuppressionDelete(type=SuppressionType.BOUNCES, emails=[f"u{n}@example.com" for n in range(10_001)])
    assert len(BulkSuppressionRequest(type=SuppressionType.BOUNCES, entries=entries[:10_000]).entries) == 10_000  # type: ignore[arg-type]


def test_a_bulk_calls_digest_names_the_operation_and_the_request() -> None:
    request = '{"type":"bounces","entries":[{"email":"a@example.com","reason":null}]}'
    assert bulk_call_digest("add", request) == bulk_call_digest("add", request)  # its retry: the same call
    others = {bulk_call_digest("delete", request), bulk_call_digest("add", request.replace("a@", "b@"))}
    assert bulk_call_digest("add", request) not in others and len(others) == 2
