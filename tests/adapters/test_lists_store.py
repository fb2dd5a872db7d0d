"""Mailing lists on moto: a list and its address written together (the address unique in the
account), members with the list's member_count moved in the same transaction, a bulk upsert in
transactions of 99 members plus the count, a stale revision refused, and a deleted list's members
removed page by page with the deletion marker last."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from postline import wiring
from postline.accounts.domain import Account, Plan
from postline.audit.domain import Actor, audit_entry
from postline.config import Resources
from postline.keys.access import Environment, Scope
from postline.keys.identity import Principal
from postline.lists.models import (
    BulkMember,
    BulkMembersRequest,
    ListCreate,
    MemberCreate,
    MemberFilters,
    MemberUpdate,
)
from postline.lists.service import ListService
from postline.lists.store import DynamoLists
from postline.shared.dynamo import key
from postline.shared.errors import NotFound, ValidationFailed
from postline.shared.resources_table import account_pk
from postline.wiring import accounts as accounts_root
from postline.wiring import audit as audit_root
from postline.wiring import shared
from tests.aws_stack import InProcessStack
from tests.fakes.shared import FixedClock

NOW = datetime(2026, 11, 1, 12, 0, 5, tzinfo=UTC)


class RecordingQueue:
    def __init__(self) -> None:
        self.deletions: list[tuple[str, str]] = []

    def enqueue_deletion(self, account_id: str, list_id: str) -> None:
        self.deletions.append((account_id, list_id))

    def unschedule_send(self, send_id: str) -> None:
        pass


class CountingClient:
    """The DynamoDB client, recording each TransactWriteItems call's size."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.transactions: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def transact_write_items(self, **kwargs: Any) -> Any:
        self.transactions.append(len(kwargs["TransactItems"]))
        return self._client.transact_write_items(**kwargs)


@pytest.fixture
def client(stack: InProcessStack) -> CountingClient:
    return CountingClient(wiring.client("dynamodb"))


@pytest.fixture
def store(client: CountingClient) -> DynamoLists:
    return DynamoLists(client, wiring.settings(Resources).table)


@pytest.fixture
def queue() -> RecordingQueue:
    return RecordingQueue()


@pytest.fixture
def service(store: DynamoLists, queue: RecordingQueue) -> ListService:
    return ListService(
        store=store, queue=queue, audit=audit_root.audit_store(), ids=shared.ids(), clock=FixedClock(NOW)
    )


@pytest.fixture
def principal() -> Principal:
    account = Account(id=f"acct_{uuid.uuid4().hex[:10]}", plan=Plan.FREE, created_at=NOW - timedelta(days=60))
    return Principal(account=account, scope=Scope.FULL_ACCESS, env=Environment.LIVE, source_ip="127.0.0.1")


def test_a_list_and_its_address_are_written_together_and_the_address_is_unique(
    service: ListService, principal: Principal
) -> None:
    created = service.create(principal, ListCreate(address="News@Lists.Example", name="News"))
    assert service.get(principal, created.id) == created
    assert service.get(principal, "news%40lists.example") == created
    with pytest.raises(ValidationFailed, match=r"address: this account has a list at news@lists\.example already"):
        service.create(principal, ListCreate(address="news@lists.example", name="Again"))
    other = Principal(account=principal.account.model_copy(update={"id": "acct_other_lists"}),
                      scope=Scope.FULL_ACCESS, env=Environment.LIVE)  # fmt: skip
    with pytest.raises(NotFound):
        service.get(other, created.id)
    assert service.create(other, ListCreate(address="news@lists.example", name="Theirs")).id != created.id


def test_the_accounts_list_count_moves_in_the_list_create_and_delete_transactions(
    service: ListService, principal: Principal
) -> None:
    accounts = accounts_root.account_store()
    account_id = principal.account.id
    created = audit_entry(entry_id=str(uuid.uuid4()), account_id=account_id, actor=Actor.system(),
                          action="account.created", target=None, details=None, now=NOW)  # fmt: skip
    accounts.create_account(principal.account, created)
    stored_account = accounts.get_account(account_id)
    assert stored_account is not None and stored_account.list_count == 0
    counted = Principal(account=stored_account, scope=Scope.FULL_ACCESS, env=Environment.LIVE)
    made = [service.create(counted, ListCreate(address=f"p{n}@lists.example", name="P")) for n in range(12)]
    for mailing_list in made[:5]:
        service.delete(counted, mailing_list.id)
    with pytest.raises(NotFound):  # a failed delete (gone already) moves no count
        service.delete(counted, made[0].id)
    stored = accounts.get_account(principal.account.id)
    assert stored is not None and stored.list_count == 7
    accounts.update_account(stored.model_copy(update={"list_count": 0, "name": "renamed"}), audit_entry(
        entry_id=str(uuid.uuid4()), account_id=stored.id, actor=Actor.system(), action="account.updated",
        target=None, details=None, now=NOW))  # fmt: skip
    after = accounts.get_account(principal.account.id)
    assert after is not None and (after.name, after.list_count) == ("renamed", 7)  # only the list store writes it
    # An account stored before lists were counted (the principal fixture's: no account item) keeps none.
    assert principal.account.list_count is None
    service.create(principal, ListCreate(address="legacy@lists.example", name="L"))


def test_member_writes_move_the_count_in_their_transaction(
    service: ListService, store: DynamoLists, principal: Principal, client: CountingClient
) -> None:
    created = service.create(principal, ListCreate(address="count@lists.example", name="Count"))
    client.transactions.clear()
    service.add_member(principal, created.id, MemberCreate(address="a@example.com", vars={"x": 1}))
    assert client.transactions == [3]  # the member, the count, the audit entry
    with pytest.raises(ValidationFailed, match=r"a@example\.com is a member of this list already"):
        service.add_member(principal, created.id, MemberCreate(address="A@example.com"))
    assert service.get(principal, created.id).member_count == 1
    member, revision = store.get_member(created.id, "a@example.com") or pytest.fail("no member")
    assert revision == 1
    service.update_member(principal, created.id, "a@example.com", MemberUpdate(subscribed=False))
    assert not store.update_member(member, revision, audit_root.audit_store().list_audit(principal.account.id, page=1,
                                                                                      per_page=1)[0][0])  # fmt: skip
    service.delete_member(principal, created.id, "a@example.com")
    with pytest.raises(NotFound):
        service.delete_member(principal, created.id, "a@example.com")
    assert service.get(principal, created.id).member_count == 0


def test_a_bulk_upsert_writes_99_members_and_the_count_per_transaction(
    service: ListService, principal: Principal, client: CountingClient
) -> None:
    created = service.create(principal, ListCreate(address="bulk@lists.example", name="Bulk"))
    request = BulkMembersRequest(members=[BulkMember(address=f"u{n}@example.com") for n in range(250)])
    client.transactions.clear()
    result = service.bulk_upsert(principal, created.id, request)
    assert (result.created, result.updated, result.member_count) == (250, 0, 250)
    assert client.transactions == [100, 100, 53]
    again = service.bulk_upsert(principal, created.id, request)
    assert (again.created, again.updated, again.member_count) == (0, 250, 250)


def test_a_deleted_lists_members_are_removed_in_pages_then_its_marker(
    service: ListService, store: DynamoLists, principal: Principal, queue: RecordingQueue, monkeypatch: Any
) -> None:
    created = service.create(principal, ListCreate(address="gone@lists.example", name="Gone"))
    request = BulkMembersRequest(members=[BulkMember(address=f"u{n}@example.com") for n in range(120)])
    service.bulk_upsert(principal, created.id, request)
    service.delete(principal, created.id)
    assert queue.deletions == [(principal.account.id, created.id)]
    with pytest.raises(NotFound):
        service.get(principal, "gone@lists.example")
    monkeypatch.setattr("postline.lists.service.REMOVE_PAGE", 50)
    monkeypatch.setattr("postline.lists.service.REMOVE_PAGES", 2)
    marker = {"TableName": wiring.settings(Resources).table,
              "Key": key(account_pk(principal.account.id), f"LISTDEL#{created.id}")}  # fmt: skip
    assert "Item" in wiring.client("dynamodb").get_item(**marker)
    assert not service.remove_members(principal.account.id, created.id)  # 100 removed, the rest queued
    assert "Item" in wiring.client("dynamodb").get_item(**marker)
    assert len(queue.deletions) == 2
    assert service.remove_members(principal.account.id, created.id)
    assert "Item" not in wiring.client("dynamodb").get_item(**marker)
    assert store.members_page(created.id, MemberFilters(), page=1, per_page=10)[1] == 0
    assert service.remove_members(principal.account.id, created.id)  # a redelivery: nothing left, harmless


def test_subscribed_members_page_in_address_order_from_where_the_last_page_ended(
    service: ListService, store: DynamoLists, principal: Principal
) -> None:
    created = service.create(principal, ListCreate(address="pages@lists.example", name="Pages"))
    members = [BulkMember(address=f"u{n:02d}@example.com", subscribed=n % 3 != 0) for n in range(30)]
    service.bulk_upsert(principal, created.id, BulkMembersRequest(members=members))
    seen: list[str] = []
    after: str | None = None
    while True:
        page, after = store.subscribed_page(created.id, after=after, limit=7)
        seen += [member.address for member in page]
        if after is None:
            break
    assert seen == [f"u{n:02d}@example.com" for n in range(30) if n % 3 != 0]


def test_a_page_tasks_range_holds_its_bounds_members_as_they_are_now(
    service: ListService, store: DynamoLists, principal: Principal
) -> None:
    created = service.create(principal, ListCreate(address="ranges@lists.example", name="Ranges"))
    members = [BulkMember(address=f"u{n:02d}@example.com", subscribed=n % 3 != 0) for n in range(30)]
    service.bulk_upsert(principal, created.id, BulkMembersRequest(members=members))
    bounds: list[tuple[str | None, str | None]] = []
    after: str | None = None
    while True:
        _, through = store.subscribed_page(created.id, after=after, limit=7)
        assert store.subscribed_page_end(created.id, after=after, limit=7) == through  # the same, no items
        bounds.append((after, through))
        if through is None:
            break
        after = through
    late = [BulkMember(address="u05b@example.com"), BulkMember(address="zz@example.com")]  # joined since
    service.bulk_upsert(principal, created.id, BulkMembersRequest(members=late))
    pages = [store.subscribed_range(created.id, after=low, through=high) for low, high in bounds]
    seen = [member.address for page in pages for member in page]
    wanted = sorted([f"u{n:02d}@example.com" for n in range(30) if n % 3 != 0] + ["u05b@example.com", "zz@example.com"])
    assert seen == wanted  # every member in exactly one page, who joined since included
    assert [m.address for m in store.subscribed_range(created.id, after=None, through="u02@example.com")] == [
        "u01@example.com",
        "u02@example.com",
    ]
