"""The organisation's copy of an audit entry of a write made on behalf of one of its subaccounts,
written in the write's own transaction.

Every area's store puts its entry into the transaction of the change it describes (audit_put, one
item among the store's own); teaching each of them about organisations would touch every store.
Instead, while a request acts on behalf of a subaccount, `copying_in_transactions` watches the
DynamoDB client's TransactWriteItems (a botocore before-parameter-build handler, `add_copies`,
registered on the client by the HTTP layer): a Put of one of the request's entries into the
subaccount's log gets the organisation's copy (audit/service.py organisation_copy) as one more
item of the same transaction, so both are written or neither is. An entry written otherwise (a
client without the handler, another thread, a transaction already at DynamoDB's 100 items) is not
in `copied`, and the HTTP layer copies it once the write succeeded, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from postline.audit.domain import AuditEntry
from postline.audit.service import organisation_copy
from postline.audit.store import audit_put, audit_sk
from postline.shared.resources_table import account_pk

EVENT = "before-parameter-build.dynamodb.TransactWriteItems"
HANDLER_ID = "postline-organisation-audit-copies"
MAX_TRANSACTION_ITEMS = 100  # DynamoDB's TransactWriteItems limit


@dataclass(frozen=True)
class OnBehalf:
    """Who acts: the organisation, in which subaccount (its id, and how its copy names it)."""

    organisation_id: str
    subaccount_id: str
    subaccount: str  # "<slug> (<id>)"


@dataclass
class _Copying:
    acting: Callable[[], OnBehalf | None]  # read at each transaction: a route may act in a subaccount late
    made: list[AuditEntry]  # the request's entries (audit/service.py entries_made)
    new_id: Callable[[], str]
    copied: dict[str, str] = field(default_factory=dict)  # entry id -> its copy's id


_copying: ContextVar[_Copying | None] = ContextVar("postline_organisation_audit_copies", default=None)


@contextmanager
def copying_in_transactions(
    made: list[AuditEntry], *, acting: Callable[[], OnBehalf | None], new_id: Callable[[], str]
) -> Iterator[dict[str, str]]:
    """While open, the transactions of this context that write one of `made`'s entries into the
    acting subaccount's log also write the organisation's copy. Yields the entries so copied (entry
    id -> copy id, filled as they are), which need no copy afterwards."""
    state = _Copying(acting=acting, made=made, new_id=new_id)
    token = _copying.set(state)
    try:
        yield state.copied
    finally:
        _copying.reset(token)


def add_copies(params: dict[str, Any], **_: Any) -> None:
    """The botocore handler: adds the organisation's copies to a TransactWriteItems' items."""
    state = _copying.get()
    if state is None or not state.made:
        return
    behalf = state.acting()
    if behalf is None:
        return
    items: list[dict[str, Any]] = list(params.get("TransactItems") or [])
    pk = account_pk(behalf.subaccount_id)
    entries = {audit_sk(e): e for e in state.made if e.account_id == behalf.subaccount_id}
    copies: list[tuple[str, dict[str, Any]]] = []
    for op in items:
        put = op.get("Put") or {}
        item = put.get("Item") or {}
        entry = entries.get((item.get("sk") or {}).get("S", "")) if (item.get("pk") or {}).get("S") == pk else None
        if entry is None:
            continue
        copy_id = state.copied.get(entry.id) or state.new_id()  # the same copy if the write is retried
        copy = organisation_copy(
            entry, entry_id=copy_id, organisation_id=behalf.organisation_id, subaccount=behalf.subaccount
        )
        copies.append((entry.id, audit_put(put["TableName"], copy)))
        state.copied[entry.id] = copy_id
    if not copies:
        return
    if len(items) + len(copies) > MAX_TRANSACTION_ITEMS:
        for entry_id, _ in copies:  # copied after the write instead
            state.copied.pop(entry_id, None)
        return
    params["TransactItems"] = [*items, *(op for _, op in copies)]


def register(dynamodb: Any) -> None:
    """Hooks add_copies onto a DynamoDB client (idempotent)."""
    dynamodb.meta.events.register(EVENT, add_copies, unique_id=HANDLER_ID)
