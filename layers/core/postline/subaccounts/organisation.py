"""An organisation's workspaces, as other areas see them: the parent and its subaccounts.

Shared domains (domains/organisation.py) and the shared quota pool read an account's organisation
through this: the other live workspaces of the organisation (its parent and its siblings, or, for
a parent, its subaccounts). The plan bounds an organisation to PLAN_LIMITS' subaccounts (25), so
one page holds them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from postline.accounts.domain import Account
    from postline.subaccounts.ports import AccountLookup, SubaccountStore

MAX_WORKSPACES = 100  # one page: above any plan's subaccount limit


class Organisation:
    def __init__(self, *, accounts: AccountLookup, subaccounts: SubaccountStore) -> None:
        self._accounts = accounts
        self._subaccounts = subaccounts

    def account(self, account_id: str) -> Account | None:
        return self._accounts.get_account(account_id)

    def other_workspaces(self, account: Account) -> list[Account]:
        """The organisation's other live workspaces: the parent first, then the siblings (or the
        subaccounts, for the parent); [] for an account outside any organisation."""
        root_id = account.parent_account_id or account.id
        subs, _ = self._subaccounts.list_subaccounts(root_id, page=1, per_page=MAX_WORKSPACES)
        workspaces = list(subs)
        if account.parent_account_id is not None:
            parent = self._accounts.get_account(root_id)
            if parent is not None:
                workspaces.insert(0, parent)
        return [w for w in workspaces if w.id != account.id and w.blocked_code() is None]
