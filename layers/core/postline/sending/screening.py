"""Screening at acceptance: which recipients are rejected before send, and why; and
the two ways the operator keeps an account's mail from going out, the sandbox and routing.

The sandbox (Account.sandbox): a live send may reach only the account's authorized recipients,
`Account.sandbox_recipients` (lowercased, managed with `postline sandbox add|remove|list`) and its
owner_email. Any other recipient is dropped with a `rejected` event, reason
sandbox_recipient_not_authorized, and the API still answers 202, as for a suppressed address; a
message with no authorized recipient ends rejected as a whole. Test keys and routed sends are not
affected: nothing of theirs leaves the machine. Accounts start outside the sandbox.

Routing (Account.routed_to_sandbox, ApiKey.routed_to_sandbox; `postline sandbox route`): support
makes an account's (or one key's) live sends simulated. They are accepted and screened as test
sends are (no verified domain needed), charged to the live quota as the caller asked for live
mail, handed to the simulator, and every event carries data.test and data.routed true. Own
test-key sends carry data.test only.

The interface's error table lists "sandbox send to a recipient outside the sandbox" under 403; its
POST /v3/messages and `rejected` event type say a sandbox_recipient_not_authorized send still
answers 202 with a rejected event. That more specific text wins here.
"""

from __future__ import annotations

from postline.accounts.domain import Account
from postline.events.domain import RejectReason
from postline.keys.domain import ApiKey

SUPPRESSED = "suppressed"  # some, not all, of a message's recipients are on a suppression list


def sandbox_allows(account: Account, address: str) -> bool:
    """Whether a live send from the account may go to the address."""
    if not account.sandbox:
        return True
    allowed = {*account.sandbox_recipients, *([account.owner_email] if account.owner_email else [])}
    return address.lower() in {entry.lower() for entry in allowed}


def routed_to_sandbox(account: Account, key: ApiKey | None) -> bool:
    """Whether the operator routed this account's live sends, or this key's, to the simulator."""
    return account.routed_to_sandbox or (key is not None and key.routed_to_sandbox)


def rejections(
    recipients: list[str], *, leaves: bool, domain_verified: bool, account: Account, suppressed: set[str]
) -> dict[str, str]:
    """Recipient -> data.reason for those rejected before send. `leaves`: the message would really
    go out (a live, unrouted send); `suppressed`: the lowercased addresses on a suppression list."""
    if leaves and not domain_verified:
        return dict.fromkeys(recipients, RejectReason.DOMAIN_NOT_VERIFIED.value)
    rejected: dict[str, str] = {}
    if leaves:
        reason = RejectReason.SANDBOX_RECIPIENT_NOT_AUTHORIZED.value
        rejected = {r: reason for r in recipients if not sandbox_allows(account, r)}
    blocked = [r for r in recipients if r not in rejected and r.lower() in suppressed]
    everyone = len(blocked) == len(recipients)
    reason = RejectReason.ALL_RECIPIENTS_SUPPRESSED.value if everyone else SUPPRESSED
    rejected.update(dict.fromkeys(blocked, reason))
    return rejected
