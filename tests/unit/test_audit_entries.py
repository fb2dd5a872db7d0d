"""Audit log entries: who is shown, who is redacted, how pages read."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from postline.audit.domain import REDACTED_STAFF_EMAIL, Actor, ActorType, AuditEntry, audit_entry

from .world import World

AT = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)


def _entry(actor: Actor, **fields: Any) -> AuditEntry:
    base: dict[str, Any] = {
        "entry_id": "e1",
        "account_id": "acct_1",
        "action": "key.created",
        "target": "key_1",
        "now": AT,
    }
    return audit_entry(actor=actor, **{**base, **fields})


def test_user_entries_keep_the_actor_id_and_ip() -> None:
    entry = _entry(Actor(ActorType.USER, id="key_7", ip_address="203.0.113.9"), details="ci (full_access, live)")
    assert entry.model_dump(mode="json") == {
        "id": "e1",
        "account_id": "acct_1",
        "actor_id": "key_7",
        "actor_type": "user",
        "actor_email": None,
        "action": "key.created",
        "target": "key_1",
        "details": "ci (full_access, live)",
        "ip_address": "203.0.113.9",
        "created_at": "2025-03-14T12:00:00Z",
    }


@pytest.mark.parametrize(
    "staff",
    [
        Actor.staff(),
        Actor(ActorType.STAFF, id="staff_alice", ip_address="198.51.100.4"),
        Actor(ActorType.STAFF, id="staff_bob", ip_address="2001:db8::4"),
    ],
)
def test_staff_entries_hide_who_and_where_behind_a_constant_email(staff: Actor) -> None:
    entry = _entry(staff)
    assert entry.actor_type is ActorType.STAFF
    assert entry.actor_id is None
    assert entry.ip_address is None
    assert entry.actor_email == REDACTED_STAFF_EMAIL
    assert "alice" not in entry.model_dump_json()
    assert "bob" not in entry.model_dump_json()


def test_system_entries_have_no_actor_id_and_no_email() -> None:
    entry = _entry(Actor.system(), account_id=None, action="webhook.auto_disable", target="wh_1")
    assert (entry.actor_type, entry.actor_id, entry.actor_email) == (ActorType.SYSTEM, None, None)
    assert entry.account_id is None


def test_a_system_actor_given_an_id_still_records_none() -> None:
    assert _entry(Actor(ActorType.SYSTEM, id="scheduler")).actor_id is None


def test_audit_log_lists_newest_first_with_page_numbers(world: World) -> None:
    account = world.account()  # writes account.created
    for _ in range(4):
        world.clock.advance(10)
        world.key(account)  # writes key.created
    principal = world.console_principal(account)

    first = world.audit.list_page(principal.account.id, page=1, per_page=2)
    last = world.audit.list_page(principal.account.id, page=3, per_page=2)

    assert [e.action for e in first.items] == ["key.created", "key.created"]
    assert first.items[0].created_at > first.items[1].created_at
    assert first.pagination.model_dump() == {"page": 1, "per_page": 2, "total_count": 5, "total_pages": 3}
    assert [e.action for e in last.items] == ["account.created"]
    assert world.audit.list_page(principal.account.id, page=4, per_page=2).items == []


def test_entries_written_in_the_same_instant_list_newest_first_by_id(world: World) -> None:
    account = world.account()
    created = [world.key(account).id for _ in range(3)]  # the clock does not move
    page = world.audit.list_page(account.id, page=1, per_page=10)
    assert [e.target for e in page.items] == [*reversed(created), account.id]


def test_audit_log_shows_only_the_callers_account(world: World) -> None:
    mine, theirs = world.account(), world.account()
    world.key(theirs)
    world.operator.set_sending_paused(None, True)  # a platform entry belongs to no account

    page = world.audit.list_page(mine.id, page=1, per_page=25)

    assert [(e.account_id, e.action) for e in page.items] == [(mine.id, "account.created")]
    assert page.pagination.total_count == 1


def test_entries_made_while_collecting_are_seen_and_the_organisations_copy_says_for_whom() -> None:
    from postline.audit.service import entries_made, new_audit_entry, organisation_copy
    from tests.fakes.shared import SequentialIds

    ids, actor = SequentialIds(), Actor(ActorType.USER, id="key_org", ip_address="203.0.113.9")
    outside = new_audit_entry(ids, actor, "sub_1", "template.created", "tpl_0", now=AT)
    with entries_made() as made:
        first = new_audit_entry(ids, actor, "sub_1", "template.created", "tpl_1", now=AT)
        second = new_audit_entry(ids, actor, "sub_1", "template.updated", "tpl_1", "name", now=AT)
    new_audit_entry(ids, actor, "sub_1", "template.deleted", "tpl_1", now=AT)  # closed: not collected
    assert made == [first, second] and outside not in made
    copy = organisation_copy(second, entry_id="copy_1", organisation_id="acct_org", subaccount="acme (sub_1)")
    assert (copy.id, copy.account_id, copy.actor_id, copy.ip_address) == (
        "copy_1",
        "acct_org",
        "key_org",
        "203.0.113.9",
    )
    assert (copy.action, copy.target, copy.created_at) == ("template.updated", "tpl_1", AT)
    assert copy.details == "on behalf of subaccount acme (sub_1): name"
    bare = organisation_copy(first, entry_id="copy_2", organisation_id="acct_org", subaccount="acme (sub_1)")
    assert bare.details == "on behalf of subaccount acme (sub_1)"


def test_entries_made_by_a_requests_parallel_tasks_are_collected_too() -> None:
    from postline.audit.service import entries_made, new_audit_entry
    from postline.shared.parallel import run_each
    from tests.fakes.shared import SequentialIds

    ids, actor = SequentialIds(), Actor(ActorType.USER, id="key_org")

    def make(n: int) -> Any:
        return lambda: new_audit_entry(ids, actor, "sub_1", "list.member_added", f"m{n}", now=AT)

    with entries_made() as made:
        run_each([make(n) for n in range(6)], lambda index: None, workers=3)
    assert sorted(entry.target or "" for entry in made) == [f"m{n}" for n in range(6)]
