"""Whether an address's suppression entries stop a send to it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from postline.suppressions.domain import Suppression, SuppressionType, blocks

T = SuppressionType
NOW = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)


def entry(kind: SuppressionType, *, override_unsubscribes: bool = False) -> Suppression:
    return Suppression(
        id=f"sup_{kind}",
        account_id="acct_1",
        type=kind,
        email="ann@example.com",
        override_unsubscribes=override_unsubscribes,
        created_at=NOW,
    )


def _label(entries: list[Suppression]) -> str:
    names = ["allowlist(override)" if e.override_unsubscribes else str(e.type) for e in entries]
    return "+".join(names) or "none"


ALLOW = entry(T.ALLOWLIST)
ALLOW_ALL = entry(T.ALLOWLIST, override_unsubscribes=True)
BOUNCE, UNSUB, COMPLAINT = entry(T.BOUNCES), entry(T.UNSUBSCRIBES), entry(T.COMPLAINTS)


@pytest.mark.parametrize(
    ("entries", "blocked"),
    [
        ([], False),
        # Block lists alone, singly and together.
        ([BOUNCE], True),
        ([UNSUB], True),
        ([COMPLAINT], True),
        ([BOUNCE, UNSUB], True),
        ([BOUNCE, COMPLAINT], True),
        ([UNSUB, COMPLAINT], True),
        ([BOUNCE, UNSUB, COMPLAINT], True),
        # An allowlist entry alone blocks nothing.
        ([ALLOW], False),
        ([ALLOW_ALL], False),
        # The allowlist overrides bounces and complaints ...
        ([ALLOW, BOUNCE], False),
        ([ALLOW, COMPLAINT], False),
        ([ALLOW, BOUNCE, COMPLAINT], False),
        ([ALLOW_ALL, BOUNCE], False),
        ([ALLOW_ALL, COMPLAINT], False),
        # ... but an unsubscribe only when it says so.
        ([ALLOW, UNSUB], True),
        ([ALLOW, UNSUB, BOUNCE], True),
        ([ALLOW, UNSUB, COMPLAINT], True),
        ([ALLOW_ALL, UNSUB], False),
        ([ALLOW_ALL, UNSUB, BOUNCE, COMPLAINT], False),
    ],
    ids=lambda value: _label(value) if isinstance(value, list) else None,
)
def test_blocks(entries: list[Suppression], blocked: bool) -> None:
    assert blocks(entries) is blocked


@pytest.mark.parametrize("entries", [[ALLOW, UNSUB], [ALLOW_ALL, UNSUB, BOUNCE]])
def test_the_order_of_entries_does_not_matter(entries: list[Suppression]) -> None:
    assert blocks(entries) is blocks(list(reversed(entries)))
