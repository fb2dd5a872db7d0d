"""`python -m devtools.local` as a user runs it: keys survive a restart, Ctrl-C exits cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Spawn

pytestmark = pytest.mark.e2e


def test_dev_keys_survive_a_restart_with_the_same_state_dir(spawn: Spawn, tmp_path: Path) -> None:
    with spawn(tmp_path) as first:
        output = "".join(first.output)
        first_dev = first.dev
        assert first.stop() == 0

    with spawn(tmp_path) as second:
        whoami = second.api(first_dev["keys"]["live"]).get("/v3/whoami")
        whoami_test = second.api(first_dev["keys"]["test"]).get("/v3/whoami")
        assert second.stop() == 0

    assert first_dev["keys"]["live"] in output
    assert f'curl -H "Authorization: Bearer {first_dev["keys"]["live"]}"' in output
    assert second.dev["account_id"] == first_dev["account_id"]
    assert second.dev["keys"] == first_dev["keys"]
    assert whoami.status_code == 200, whoami.text
    assert whoami.json()["account"]["id"] == first_dev["account_id"]
    assert whoami_test.json()["api_key"]["environment"] == "test"
    assert second.dev["aws"]["env"]["RESOURCES_TABLE"] == "postline-local-ResourcesTable"
    assert second.output[-1].strip() == "Stopped."
