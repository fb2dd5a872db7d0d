"""Rejected before send (sending/screening.py): the sandbox's authorized recipients, routing to the
simulator, and which reason each rejected recipient gets; data.test and data.routed on events."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from postline.accounts.domain import Account
from postline.events.domain import EventType, message_event
from postline.keys.access import Environment, Scope
from postline.keys.domain import ApiKey
from postline.sending.domain import Message
from postline.sending.screening import rejections, routed_to_sandbox, sandbox_allows

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
ANN, BOB, OWNER = "ann@example.com", "Bob@example.com", "owner@acme.test"


def account(**fields: object) -> Account:
    return Account.model_validate({"id": "acct_1", "created_at": NOW, "owner_email": "Owner@Acme.test", **fields})


def key(**fields: object) -> ApiKey:
    base = {"id": "key_1", "account_id": "acct_1", "name": "k", "prefix": "pl_live_1234", "key_hash": "h"}
    return ApiKey.model_validate(
        {**base, "scope": Scope.FULL_ACCESS, "env": Environment.LIVE, "created_at": NOW, **fields}
    )


# -- the sandbox ------------------------------------------------------------------------------------


def test_outside_the_sandbox_anyone_may_be_sent_to() -> None:
    assert sandbox_allows(account(), "anyone@example.com")


def test_in_the_sandbox_only_authorized_recipients_and_the_owner_case_insensitively() -> None:
    sandboxed = account(sandbox=True, sandbox_recipients=[ANN])
    assert sandbox_allows(sandboxed, "ANN@example.com")
    assert sandbox_allows(sandboxed, OWNER)
    assert not sandbox_allows(sandboxed, BOB)


def test_an_account_without_an_owner_email_allows_only_its_list() -> None:
    sandboxed = account(sandbox=True, owner_email=None)
    assert not sandbox_allows(sandboxed, OWNER)


def test_new_accounts_are_not_in_the_sandbox_nor_routed() -> None:
    fresh = account()
    assert (fresh.sandbox, fresh.sandbox_recipients, fresh.routed_to_sandbox) == (False, [], False)


def test_routing_by_account_or_by_key() -> None:
    assert not routed_to_sandbox(account(), key())
    assert routed_to_sandbox(account(routed_to_sandbox=True), key())
    assert routed_to_sandbox(account(), key(routed_to_sandbox=True))
    assert routed_to_sandbox(account(routed_to_sandbox=True), None)  # a console user's send
    assert not routed_to_sandbox(account(), None)


# -- the reasons ------------------------------------------------------------------------------------


def screen(
    recipients: list[str],
    *,
    leaves: bool = True,
    verified: bool = True,
    suppressed: list[str] | None = None,
    **fields: object,
) -> dict[str, str]:
    return rejections(
        recipients,
        leaves=leaves,
        domain_verified=verified,
        account=account(**fields),
        suppressed={a.lower() for a in suppressed or []},
    )


def test_an_unverified_domain_rejects_everyone_when_the_mail_would_leave() -> None:
    assert screen([ANN, BOB], verified=False) == {ANN: "domain_not_verified", BOB: "domain_not_verified"}
    assert screen([ANN, BOB], verified=False, leaves=False) == {}


def test_the_sandbox_rejects_unauthorized_recipients_only() -> None:
    found = screen([ANN, BOB, OWNER], sandbox=True, sandbox_recipients=[ANN])
    assert found == {BOB: "sandbox_recipient_not_authorized"}


def test_the_sandbox_rejects_a_message_with_no_authorized_recipient_whole() -> None:
    found = screen([ANN, BOB], sandbox=True)
    assert found == {ANN: "sandbox_recipient_not_authorized", BOB: "sandbox_recipient_not_authorized"}


def test_simulated_mail_is_not_held_by_the_sandbox() -> None:
    assert screen([ANN, BOB], leaves=False, sandbox=True) == {}


@pytest.mark.parametrize(("suppressed", "reason"), [([ANN], "suppressed"), ([ANN, BOB], "all_recipients_suppressed")])
def test_suppressed_recipients(suppressed: list[str], reason: str) -> None:
    assert screen([ANN, BOB], suppressed=suppressed) == dict.fromkeys(suppressed, reason)


def test_sandbox_first_then_suppressions() -> None:
    found = screen([ANN, BOB], sandbox=True, sandbox_recipients=[ANN], suppressed=[ANN, BOB])
    assert found == {BOB: "sandbox_recipient_not_authorized", ANN: "suppressed"}


# -- events -----------------------------------------------------------------------------------------


def message(**fields: object) -> Message:
    base = {"id": "msg_1", "account_id": "acct_1", "key_id": "key_1", "from": "a@b.test", "to": [ANN]}
    return Message.model_validate({**base, "subject": "s", "created_at": NOW, **fields})


@pytest.mark.parametrize(
    ("fields", "flags"),
    [
        ({"test": False}, {}),  # a real delivery: neither
        ({"test": True}, {"test": True}),  # an own test-key send: test only
        ({"test": True, "routed": True}, {"test": True, "routed": True}),  # routed by support: both
    ],
)
def test_events_carry_test_and_routed(fields: dict[str, object], flags: dict[str, bool]) -> None:
    event = message_event(message(**fields), EventType.SENT, ANN, NOW, {"x": 1}, retention_days=30)
    assert event.data == {"x": 1, **flags}
