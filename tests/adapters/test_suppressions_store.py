"""The suppression lists on moto: entries keyed for the send path's batched check, the indexes the API
reads (by id, newest first, per type, by address prefix), single writes with their audit entry, bulk
add and delete through batched calls (idempotent, exact counts), and the bulk routes' minute window."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline import wiring
from postline.accounts.domain import Account, Plan
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.shared.errors import NotFound, RateLimited, ValidationFailed
from postline.suppressions.domain import SuppressionSource, SuppressionType, new_suppression
from postline.suppressions.models import (
    BulkEntry,
    BulkSuppressionDelete,
    BulkSuppressionRequest,
    SuppressionCreate,
    SuppressionFilters,
    SuppressionRemoval,
)
from postline.suppressions.service import SuppressionService
from postline.suppressions.store import DynamoSuppressions
from postline.wiring import audit as audit_root
from postline.wiring import shared, suppressions, usage
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock

NOW = datetime(2026, 11, 1, 12, 0, 5, tzinfo=UTC)


class CountingClient:
    """The DynamoDB client, counting calls by operation (from several threads: the import worker's
    store makes its calls side by side, and `+= 1` on a dict entry is not atomic)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.calls: dict[str, int] = {}
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not callable(attribute) or name.startswith("get_paginator"):
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                self.calls[name] = self.calls.get(name, 0) + 1
            return attribute(*args, **kwargs)

        return counted


@pytest.fixture
def store(stack: InProcessStack) -> DynamoSuppressions:
    return suppressions.suppressions()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture
def service(store: DynamoSuppressions, clock: FixedClock) -> SuppressionService:
    return SuppressionService(
        store=store, window=usage.counter_store(), audit=audit_root.audit_store(), ids=shared.ids(), clock=clock
    )


@pytest.fixture
def principal() -> Principal:
    account = Account(id=f"acct_{uuid.uuid4().hex[:10]}", plan=Plan.FREE, created_at=NOW - timedelta(days=60))
    return Principal(account=account, scope=Scope.FULL_ACCESS, env=Environment.LIVE, source_ip="127.0.0.1")


def _audit(principal: Principal) -> list[Any]:
    return audit_root.audit_store().list_audit(principal.account.id, page=1, per_page=100)[0]


def _bulk(kind: SuppressionType, *emails: str, **fields: Any) -> BulkSuppressionRequest:
    return BulkSuppressionRequest(type=kind, entries=[BulkEntry(email=email) for email in emails], **fields)


def test_one_entry_is_added_once_found_by_id_and_address_and_removed_with_its_audit_entries(
    service: SuppressionService, store: DynamoSuppressions, principal: Principal, clock: FixedClock
) -> None:
    request = SuppressionCreate(type=SuppressionType.BOUNCES, email="Jane.Doe@Example.COM", reason="bounced twice")
    entry, created = service.add(principal, request)
    assert created and entry.email == "jane.doe@example.com" and entry.source is SuppressionSource.MANUAL
    again, created_again = service.add(principal, request)
    assert not created_again and again == entry  # idempotent: the first entry stays
    assert service.get(principal, entry.id) == entry
    assert store.find(principal.account.id, SuppressionType.BOUNCES, "jane.doe@example.com") == entry
    other = Principal(account=principal.account.model_copy(update={"id": "acct_other"}), scope=Scope.FULL_ACCESS,
                      env=Environment.LIVE)  # fmt: skip
    with pytest.raises(NotFound):
        service.get(other, entry.id)  # another account's id is not found
    assert store.suppressed(principal.account.id, ["JANE.DOE@example.com", "x@example.com"]) == {"jane.doe@example.com"}
    clock.advance(1)
    service.remove(principal, entry.id, SuppressionRemoval())
    with pytest.raises(NotFound):
        service.get(principal, entry.id)
    assert store.suppressed(principal.account.id, ["jane.doe@example.com"]) == set()  # mailable again
    actions = [(e.action, e.target) for e in _audit(principal)]
    assert actions == [("suppression.deleted", entry.id), ("suppression.created", entry.id)]


def test_removing_an_unsubscribe_needs_the_flag_which_the_audit_entry_records(
    service: SuppressionService, principal: Principal, clock: FixedClock
) -> None:
    entry, _ = service.add(principal, SuppressionCreate(type=SuppressionType.UNSUBSCRIBES, email="u@example.com"))
    with pytest.raises(ValidationFailed):
        service.remove(principal, entry.id, SuppressionRemoval())
    with pytest.raises(ValidationFailed):
        service.remove_address(principal, SuppressionType.UNSUBSCRIBES, "u@example.com", SuppressionRemoval())
    assert service.get(principal, entry.id) == entry  # still there
    clock.advance(1)
    service.remove_address(
        principal, SuppressionType.UNSUBSCRIBES, "U%40example.com", SuppressionRemoval(remove_unsubscribes=True)
    )
    [deleted, _created] = _audit(principal)
    assert deleted.action == "suppression.deleted" and "removal of an unsubscribe confirmed" in (deleted.details or "")


def test_the_allowlist_overrides_an_unsubscribe_only_with_its_flag(
    service: SuppressionService, store: DynamoSuppressions, principal: Principal
) -> None:
    account_id = principal.account.id
    service.add(principal, SuppressionCreate(type=SuppressionType.UNSUBSCRIBES, email="a@example.com"))
    service.add(principal, SuppressionCreate(type=SuppressionType.UNSUBSCRIBES, email="b@example.com"))
    service.add(principal, SuppressionCreate(type=SuppressionType.BOUNCES, email="c@example.com"))
    service.add(principal, SuppressionCreate(type=SuppressionType.ALLOWLIST, email="a@example.com"))
    service.add(
        principal,
        SuppressionCreate(type=SuppressionType.ALLOWLIST, email="b@example.com", override_unsubscribes=True),
    )
    service.add(principal, SuppressionCreate(type=SuppressionType.ALLOWLIST, email="c@example.com"))
    found = store.suppressed(account_id, ["a@example.com", "b@example.com", "c@example.com"])
    assert found == {"a@example.com"}  # b: overridden with the flag; c: a bounce, allowlisted


def test_bulk_add_skips_bad_and_repeated_entries_by_index_and_is_idempotent(
    service: SuppressionService, store: DynamoSuppressions, principal: Principal, clock: FixedClock
) -> None:
    first = service.add(principal, SuppressionCreate(type=SuppressionType.COMPLAINTS, email="old@example.com"))[0]
    clock.advance(1)
    emails = [
        "a@example.com",
        "not an address",
        "OLD@example.com",
        "A@EXAMPLE.COM",
        "b@example.com",
        "@x",
        "b@example.com",
    ]
    result = service.bulk_add(principal, _bulk(SuppressionType.COMPLAINTS, *emails))
    assert result.added == 3  # a, old (already there: counted), b
    assert [(s.index, s.email, s.reason.value) for s in result.skipped] == [
        (1, "not an address", "invalid_syntax"),
        (3, "A@EXAMPLE.COM", "duplicate_in_batch"),
        (5, "@x", "invalid_syntax"),
        (6, "b@example.com", "duplicate_in_batch"),
    ]
    assert store.find(principal.account.id, SuppressionType.COMPLAINTS, "old@example.com") == first  # kept as is
    clock.advance(1)
    again = service.bulk_add(principal, _bulk(SuppressionType.COMPLAINTS, *emails))
    assert again == result
    items, total = store.list_page(principal.account.id, SuppressionFilters(), page=1, per_page=100)
    assert total == 3 and {i.email for i in items} == {"a@example.com", "b@example.com", "old@example.com"}
    [second_call, first_call, _created] = _audit(principal)
    assert (first_call.action, first_call.target) == ("suppressions.bulk_added", "complaints")
    assert first_call.details == "complaints: 3 added (2 new, 1 already listed), 4 skipped"
    assert second_call.details == "complaints: 3 added (0 new, 3 already listed), 4 skipped"


def test_bulk_add_of_10000_is_batched_reads_and_writes(
    store: DynamoSuppressions, clock: FixedClock, principal: Principal
) -> None:
    counting = CountingClient(wiring.client("dynamodb"))
    service = SuppressionService(
        store=DynamoSuppressions(counting, store._table, store._audit_table),
        window=usage.counter_store(),
        audit=audit_root.audit_store(),
        ids=shared.ids(),
        clock=clock,
    )
    emails = [f"user{n}@bulk.example" for n in range(10_000)]
    result = service.bulk_add(principal, _bulk(SuppressionType.BOUNCES, *emails))
    assert result.added == 10_000 and result.skipped == []
    assert counting.calls == {"batch_get_item": 100, "batch_write_item": 400}
    assert store.suppressed(principal.account.id, [*emails[:3], "nobody@bulk.example"]) == set(emails[:3])


def test_the_import_workers_store_makes_its_batch_calls_eight_at_a_time_with_the_same_result(
    store: DynamoSuppressions, principal: Principal
) -> None:
    """suppressions.import_suppressions(): a chunk's reads and writes side by side (shared/parallel.py),
    on a client that skips botocore's request validation: the same items, the same calls."""
    parallel = suppressions.import_suppressions()
    assert parallel._workers == 8
    counting = CountingClient(parallel._db)
    workers = DynamoSuppressions(counting, store._table, store._audit_table, workers=8)
    account_id = principal.account.id
    emails = [f"r{n}@import.example" for n in range(1_010)]
    entries = [new_suppression(account_id, SuppressionType.BOUNCES, email, NOW) for email in emails[:1_000]]
    workers.put_many(entries)
    assert workers.present(account_id, SuppressionType.BOUNCES, emails) == set(emails[:1_000])
    assert counting.calls == {"batch_write_item": 40, "batch_get_item": 11}
    assert store.present(account_id, SuppressionType.BOUNCES, emails) == set(emails[:1_000])  # one at a time
    assert store.find(account_id, SuppressionType.BOUNCES, emails[999]) == entries[999]


def test_the_send_paths_check_reads_eight_at_a_time_with_the_same_result(
    store: DynamoSuppressions, principal: Principal
) -> None:
    """suppressions.send_suppressions(): a batch's check (five keys a recipient, 100 a call) side by
    side on the bulk client, erased addresses hashed in one go: what the plain store finds."""
    checking = suppressions.send_suppressions()
    assert checking._workers == 8 and checking._erased_hashes is not None
    counting = CountingClient(checking._db)
    parallel = DynamoSuppressions(counting, store._table, store._audit_table, workers=8)
    account_id = principal.account.id
    emails = [f"s{n}@check.example" for n in range(230)]
    store.put_many([new_suppression(account_id, SuppressionType.BOUNCES, email, NOW) for email in emails[::7]])
    assert parallel.suppressed(account_id, emails) == set(emails[::7]) == store.suppressed(account_id, emails)
    assert counting.calls == {"batch_get_item": 10}  # 230 x 4 keys (no erased hashes here), 100 a call
    assert checking.suppressed(account_id, [e.upper() for e in emails]) == set(emails[::7])


def test_bulk_delete_counts_removed_and_not_found(
    service: SuppressionService, store: DynamoSuppressions, principal: Principal, clock: FixedClock
) -> None:
    service.bulk_add(principal, _bulk(SuppressionType.BOUNCES, "a@example.com", "b@example.com", "c@example.com"))
    request = BulkSuppressionDelete(
        type=SuppressionType.BOUNCES,
        emails=["A@example.com", "b@example.com", "zz@example.com", "bad", "a@example.com"],
    )
    result = service.bulk_remove(principal, request)
    assert (result.removed, result.not_found) == (2, 3)
    assert store.suppressed(principal.account.id, ["a@example.com", "b@example.com", "c@example.com"]) == {
        "c@example.com"
    }
    clock.advance(1)
    again = service.bulk_remove(principal, request)
    assert (again.removed, again.not_found) == (0, 5)
    with pytest.raises(ValidationFailed):
        service.bulk_remove(principal, BulkSuppressionDelete(type=SuppressionType.UNSUBSCRIBES, emails=["a@x.com"]))
    assert _audit(principal)[0].details == "bounces: 0 removed, 5 not found"


def test_lists_read_newest_first_by_type_window_and_address_prefix(
    service: SuppressionService, store: DynamoSuppressions, principal: Principal, clock: FixedClock
) -> None:
    created = []
    for n, kind in enumerate([SuppressionType.BOUNCES, SuppressionType.COMPLAINTS] * 3):
        clock.advance(60)
        created.append(service.add(principal, SuppressionCreate(type=kind, email=f"p{n}@example.com"))[0])
    page = service.list_page(principal, SuppressionFilters(), page=1, per_page=4)
    assert [e.id for e in page.items] == [e.id for e in reversed(created)][:4]
    assert (page.pagination.total_count, page.pagination.total_pages) == (6, 2)
    second = service.list_page(principal, SuppressionFilters(), page=2, per_page=4)
    assert [e.id for e in second.items] == [created[1].id, created[0].id]
    bounces = service.list_page(principal, SuppressionFilters(type=SuppressionType.BOUNCES), page=1, per_page=10)
    assert [e.email for e in bounces.items] == ["p4@example.com", "p2@example.com", "p0@example.com"]
    window = SuppressionFilters(since=created[1].created_at, until=created[3].created_at)
    assert [e.email for e in service.list_page(principal, window, page=1, per_page=10).items] == [
        "p3@example.com", "p2@example.com", "p1@example.com"
    ]  # fmt: skip
    both = SuppressionFilters(type=SuppressionType.COMPLAINTS, since=created[2].created_at)
    assert [e.email for e in service.list_page(principal, both, page=1, per_page=10).items] == [
        "p5@example.com", "p3@example.com"
    ]  # fmt: skip
    prefix = SuppressionFilters(email_prefix="p1", type=SuppressionType.COMPLAINTS)
    assert [e.email for e in service.list_page(principal, prefix, page=1, per_page=10).items] == ["p1@example.com"]
    assert (
        service.list_page(principal, SuppressionFilters(email_prefix="p"), page=1, per_page=10).pagination.total_count
        == 6
    )


def test_the_bulk_routes_share_ten_calls_and_ten_thousand_entries_a_minute(
    service: SuppressionService, principal: Principal, clock: FixedClock
) -> None:
    start = int(NOW.timestamp()) // 60 * 60
    assert usage.counter_store().take_bulk_entries(
        principal.account.id, start, 9_000, limit=10_000, expires_at=0, call="earlier"
    )
    too_many = [f"n{n}@example.com" for n in range(1_001)]
    with pytest.raises(RateLimited) as entries:
        service.bulk_remove(principal, BulkSuppressionDelete(type=SuppressionType.BOUNCES, emails=too_many))
    assert entries.value.code == "rate_limit_exceeded" and entries.value.retry_after == 55
    for _ in range(9):  # calls 2 to 10 of the minute: 1,000 entries left
        service.bulk_add(principal, _bulk(SuppressionType.BOUNCES, "one@example.com"))
    with pytest.raises(RateLimited) as calls:
        service.bulk_add(principal, _bulk(SuppressionType.BOUNCES, "one@example.com"))
    assert calls.value.code == "rate_limit_exceeded" and calls.value.retry_after == 55
    clock.advance(55)  # the next minute
    service.bulk_add(principal, _bulk(SuppressionType.BOUNCES, "two@example.com"))


def test_the_window_charges_a_bulk_call_once_so_its_retry_resumes_instead_of_meeting_429(
    service: SuppressionService, store: DynamoSuppressions, principal: Principal
) -> None:
    """Issue 25 D6: a bulk add cut at API Gateway's 29 s had spent its minute's entries, so its retry got
    429. The identical retry is the same call: charged once in the window, it does the rest of the work."""
    start = int(NOW.timestamp()) // 60 * 60
    window = usage.counter_store()
    assert window.take_bulk_entries(principal.account.id, start, 8_900, limit=10_000, expires_at=0, call="earlier")
    request = _bulk(SuppressionType.BOUNCES, *[f"cut{n}@example.com" for n in range(600)])
    first = service.bulk_add(principal, request)  # 9,500 of 10,000; its answer never reached the client
    emails = [entry.email for entry in request.entries]
    store.delete_many(principal.account.id, SuppressionType.BOUNCES, emails[250:])  # as if stopped half-way
    retry = service.bulk_add(principal, request)  # charged again: 9,500 + 600 > 10,000, 429
    assert retry == first and retry.added == 600
    assert store.present(principal.account.id, SuppressionType.BOUNCES, emails) == set(emails)  # resumed
    other = _bulk(SuppressionType.BOUNCES, *[f"other{n}@example.com" for n in range(600)])
    with pytest.raises(RateLimited):
        service.bulk_add(principal, other)  # another call pays: 9,500 + 600 > 10,000
    removal = BulkSuppressionDelete(type=SuppressionType.BOUNCES, emails=emails)
    with pytest.raises(RateLimited):
        service.bulk_remove(principal, removal)  # so does a delete of the same addresses
    assert window.take_bulk_entries(principal.account.id, start, 600, limit=10_000, expires_at=0, call="earlier")
