"""Mailing list rules: time-ordered list ids, derived member ids, vars merged or replaced, chunks of
99 members (one transaction with the count), and the request models' checks."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from postline.lists.domain import chunks, looks_like_address, member_id, merged_vars, new_list_id
from postline.lists.models import BulkMembersRequest, ListCreate, ListUpdate, MemberCreate, MemberUpdate

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def test_list_ids_are_version_7_uuids_that_sort_by_creation() -> None:
    ids = [new_list_id(NOW + timedelta(milliseconds=n)) for n in range(50)]
    assert ids == sorted(ids) and len(set(ids)) == 50
    parsed = uuid.UUID(ids[0])
    assert parsed.version == 7 and parsed.variant == uuid.RFC_4122
    assert int(parsed.hex[:12], 16) == int(NOW.timestamp() * 1000)
    assert new_list_id(NOW) != new_list_id(NOW)  # random below the millisecond


def test_member_ids_are_derived_from_the_list_and_the_address() -> None:
    assert member_id("l1", "a@example.com") == member_id("l1", "a@example.com")
    assert member_id("l1", "a@example.com") != member_id("l2", "a@example.com")
    assert uuid.UUID(member_id("l1", "a@example.com")).version == 5


def test_vars_are_merged_key_by_key_or_replaced() -> None:
    current = {"first": "Ann", "plan": "free"}
    assert merged_vars(current, {"plan": "pro"}, replace=False) == {"first": "Ann", "plan": "pro"}
    assert merged_vars(current, {"first": None}, replace=False) == {"plan": "free"}  # null removes a key
    assert merged_vars(current, {"team": "x"}, replace=True) == {"team": "x"}
    assert merged_vars(current, None, replace=True) == current  # none given: kept
    assert merged_vars(None, {"a": 1}, replace=False) == {"a": 1}
    assert merged_vars({"a": 1}, {"a": None}, replace=False) is None
    assert merged_vars(current, {}, replace=True) is None


def test_chunks_leave_room_for_the_count_in_a_transaction() -> None:
    parts = chunks(list(range(1_000)))
    assert [len(part) for part in parts] == [99] * 10 + [10]
    assert [n for part in parts for n in part] == list(range(1_000))


def test_references_with_an_at_are_addresses() -> None:
    assert looks_like_address("news@lists.example") and not looks_like_address(str(uuid.uuid4()))


def test_request_models_check_addresses_names_and_limits() -> None:
    assert ListCreate(address=" News@Lists.Example ", name="News").address == "news@lists.example"
    with pytest.raises(ValidationError):
        ListCreate(address="no", name="News")
    with pytest.raises(ValidationError):
        ListCreate(address="a@b.io", name="")
    with pytest.raises(ValidationError):
        ListUpdate()
    with pytest.raises(ValidationError):
        ListUpdate(name=None)
    assert ListUpdate(description=None).model_fields_set == {"description"}
    with pytest.raises(ValidationError):
        MemberCreate(address="a@b.io", vars={f"k{n}": n for n in range(101)})
    with pytest.raises(ValidationError):
        MemberCreate(address="a@b.io", vars={"long": "x" * 10_000})
    with pytest.raises(ValidationError):
        MemberUpdate(subscribed=None)
    with pytest.raises(ValidationError):
        BulkMembersRequest(members=[{"address": f"u{n}@b.io"} for n in range(1_001)])  # type: ignore[misc]
