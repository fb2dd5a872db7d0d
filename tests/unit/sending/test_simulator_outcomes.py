"""The simulator's outcomes in full: what each simulator address (or a key's weighted outcome of the
same name) answers, field by field, on a first attempt and on a retry."""

from __future__ import annotations

import pytest

from postline.delivery.outcomes import BounceClass, BounceType, Outcome, OutcomeKind, simulate
from postline.keys.domain import SEND_OUTCOMES
from postline.shared.addresses import SIMULATOR_DOMAIN

OK = "250 2.0.0 OK (simulated)"
DELIVERED = Outcome(OutcomeKind.DELIVERED, OK)
GREYLISTED = Outcome(OutcomeKind.DEFERRED, "451 4.7.1 Try again later (simulated)", reason="greylisted")

# simulator address's local part: its outcome (on every attempt but where LATER says otherwise)
FIRST = {
    "delivered": DELIVERED,
    "bounce": Outcome(OutcomeKind.BOUNCED, "550 5.1.1 Recipient address rejected: user unknown (simulated)",
                      BounceType.HARD, "user unknown", bounce_class=BounceClass.HARD),
    "soft_bounce": Outcome(OutcomeKind.BOUNCED, "552 5.2.2 Mailbox full (simulated)", BounceType.SOFT, "mailbox full",
                           bounce_class=BounceClass.SOFT),
    "suppressionlist": Outcome(OutcomeKind.BOUNCED, "550 5.1.1 Address on the suppression list (simulated)",
                               BounceType.HARD, "suppressed", bounce_class=BounceClass.SUPPRESSED),
    "complaint": Outcome(OutcomeKind.COMPLAINED, OK, data={"complaint_type": "abuse"}),
    "delayed": GREYLISTED,
    "ooto": Outcome(OutcomeKind.DELIVERED, OK, data={"auto_reply": "ooto"}),
    "anyone": DELIVERED,  # an address the simulator does not know is delivered
}  # fmt: skip
LATER = {"delayed": DELIVERED}  # greylisting: the retry is taken
TABLE = [(local, first, LATER.get(local, first)) for local, first in FIRST.items()]


@pytest.mark.parametrize(("local", "first", "later"), TABLE, ids=[row[0] for row in TABLE])
def test_each_simulator_address_answers_in_full(local: str, first: Outcome, later: Outcome) -> None:
    address = f"{local}@{SIMULATOR_DOMAIN}"
    assert simulate("msg_1", address, None, 1) == first
    for attempt in (2, 3, 8):
        assert simulate("msg_1", address, None, attempt) == later


def test_the_delayed_address_defers_only_the_first_attempt() -> None:
    assert simulate("msg_1", f"delayed@{SIMULATOR_DOMAIN}", None, 0) == DELIVERED


@pytest.mark.parametrize("outcome", sorted(SEND_OUTCOMES))
def test_a_weighted_outcome_answers_as_its_simulator_address(outcome: str) -> None:
    for attempt in (1, 2):
        drawn = simulate("msg_1", "ann@example.com", {outcome: 1.0}, attempt)
        assert drawn == simulate("msg_1", f"{outcome}@{SIMULATOR_DOMAIN}", None, attempt)


def test_every_key_outcome_is_in_the_table() -> None:
    assert set(SEND_OUTCOMES) <= {row[0] for row in TABLE}


def test_outcomes_do_not_share_their_data() -> None:
    first = simulate("msg_1", f"ooto@{SIMULATOR_DOMAIN}", None, 1)
    first.data["auto_reply"] = "changed"
    assert simulate("msg_2", f"ooto@{SIMULATOR_DOMAIN}", None, 1).data == {"auto_reply": "ooto"}
