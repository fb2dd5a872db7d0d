"""audit/organisation_copies.py: the organisation's copy of an entry written on behalf of a subaccount
joins the transaction that writes the entry (the same copy if that transaction is sent again), and
only while a request acts on behalf; a transaction with no room for it leaves it to the HTTP layer."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from postline.audit.domain import Actor, ActorType, AuditEntry
from postline.audit.organisation_copies import OnBehalf, add_copies, copying_in_transactions
from postline.audit.service import entries_made, new_audit_entry
from postline.audit.store import audit_put
from postline.shared.resources_table import put_op
from tests.fakes.shared import SequentialIds

AT = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
ACTOR = Actor(ActorType.USER, id="key_org", ip_address="203.0.113.9")
BEHALF = OnBehalf("acct_org", "sub_1", "acme (sub_1)")


def _change(n: int = 0) -> dict[str, Any]:
    return put_op("resources", "ACCT#sub_1", f"TEMPLATE#tpl_{n}", {"name": "t"})


def _written(params: dict[str, Any]) -> list[tuple[str, str]]:
    return [(op["Put"]["Item"]["pk"]["S"], op["Put"]["Item"]["sk"]["S"][:6]) for op in params["TransactItems"]]


def test_the_copy_joins_the_entrys_transaction_once_even_if_it_is_sent_again() -> None:
    ids = SequentialIds()
    with entries_made() as made, copying_in_transactions(made, acting=lambda: BEHALF, new_id=ids.new_id) as copied:
        entry = new_audit_entry(ids, ACTOR, "sub_1", "template.created", "tpl_0", now=AT)
        params = {"TransactItems": [_change(), audit_put("resources", entry)]}
        add_copies(params)
        again = {"TransactItems": [_change(), audit_put("resources", entry)]}
        add_copies(again)  # a retried write: the same copy, not a second one
    assert _written(params) == [("ACCT#sub_1", "TEMPLA"), ("ACCT#sub_1", "AUDIT#"), ("ACCT#acct_org", "AUDIT#")]
    copy = params["TransactItems"][2]["Put"]["Item"]
    assert again["TransactItems"][2]["Put"]["Item"] == copy
    assert (copy["account_id"]["S"], copy["action"]["S"], copy["details"]["S"]) == (
        "acct_org",
        "template.created",
        "on behalf of subaccount acme (sub_1)",
    )
    assert copied == {entry.id: copy["id"]["S"]}


def test_nothing_is_added_outside_a_request_on_behalf_or_for_another_accounts_entry() -> None:
    ids = SequentialIds()
    entry = new_audit_entry(ids, ACTOR, "sub_1", "template.created", "tpl_0", now=AT)
    params = {"TransactItems": [_change(), audit_put("resources", entry)]}
    add_copies(params)  # no request collecting
    with entries_made() as made, copying_in_transactions(made, acting=lambda: None, new_id=ids.new_id) as copied:
        mine = new_audit_entry(ids, ACTOR, "sub_1", "template.created", "tpl_1", now=AT)
        add_copies(params := {"TransactItems": [_change(1), audit_put("resources", mine)]})  # its own account's
    assert len(params["TransactItems"]) == 2 and copied == {}
    with entries_made() as made, copying_in_transactions(made, acting=lambda: BEHALF, new_id=ids.new_id) as copied:
        other: AuditEntry = new_audit_entry(ids, ACTOR, "sub_2", "template.created", "tpl_2", now=AT)
        add_copies(params := {"TransactItems": [audit_put("resources", other), audit_put("resources", entry)]})
    assert len(params["TransactItems"]) == 2 and copied == {}  # a sibling's, and one this request did not make


def test_a_transaction_with_no_room_leaves_the_copy_to_after_the_write() -> None:
    ids = SequentialIds()
    with entries_made() as made, copying_in_transactions(made, acting=lambda: BEHALF, new_id=ids.new_id) as copied:
        entry = new_audit_entry(ids, ACTOR, "sub_1", "list.imported", "lst_1", now=AT)
        full = [_change(n) for n in range(99)]
        params = {"TransactItems": [*full, audit_put("resources", entry)]}
        add_copies(params)
    assert len(params["TransactItems"]) == 100 and copied == {}
