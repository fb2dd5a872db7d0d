"""Retention follows the organisation, on a child runtime's movable clock: a free subaccount of the
development account (Professional) keeps a message and its events 31 days on, where Free's own 30
days would have deleted them; the organisation acts for it with On-Behalf-Of. (Its own child: moving
the clock by a month must not age any other test's data.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Spawn
from tests.e2e.test_retention import DAY, Child

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def org_child(spawn: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Child]:
    state_dir: Path = tmp_path_factory.mktemp("org-retention-state")
    with spawn(state_dir) as process:
        yield Child(process)


def test_a_free_workspace_of_a_paid_organisation_keeps_a_month_old_message(org_child: Child) -> None:
    live = org_child.process.api(org_child.process.dev["keys"]["live"])  # subaccounts are made with a live key
    made = live.post("/v3/subaccounts", json={"name": "Acme", "slug": "acme"})
    assert made.status_code == 201, made.text
    acme = {"On-Behalf-Of": "acme"}
    assert org_child.test.get("/v3/whoami", headers=acme).json()["account"]["plan"] == "free"
    body = {"from": org_child.sender, "to": ["delivered@simulator.postline.dev"], "subject": "Hi", "text": "Hello."}
    sent = org_child.test.post("/v3/messages", json=body, headers=acme)
    assert sent.status_code == 202, sent.text
    message_id = sent.json()["id"]
    org_child.drain()

    def history() -> tuple[int, int]:
        events = org_child.test.get("/v3/events", params={"message_id": message_id, "limit": 300}, headers=acme)
        assert events.status_code == 200, events.text
        found = org_child.test.get(f"/v3/messages/{message_id}", headers=acme).status_code
        return found, len(events.json()["items"])

    before = history()
    assert before[0] == 200 and before[1] >= 3  # queued, sent, delivered
    org_child.advance(31 * DAY)  # past Free's 30 days: the daily retention schedule fires
    org_child.drain()
    assert history() == before
