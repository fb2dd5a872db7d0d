"""POSTLINE_EMULATOR_EXTENSION: a named module wraps the emulator's app and sees moto's state in
its process (the bench loads a million events this way), while AWS requests pass through."""

from __future__ import annotations

import pytest
import requests

from devtools.local.emulator import EXTENSION_ENV, Emulator
from devtools.moto_patches import server_app


def test_an_extension_answers_its_paths_inside_the_emulator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXTENSION_ENV, "tests.peers.emulator_extension")
    emulator = Emulator(port=0)
    emulator.start()
    try:
        dynamodb = emulator.client("dynamodb")
        dynamodb.create_table(
            TableName="extension-probe",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        answer = requests.get(f"{emulator.endpoint_url}/_emulator/tables", timeout=10)
        assert answer.status_code == 200 and answer.json() == ["extension-probe"]
        assert dynamodb.list_tables()["TableNames"] == ["extension-probe"]  # AWS requests pass through
    finally:
        emulator.stop()


def test_the_server_app_patch_matches_the_pinned_moto() -> None:
    server_app.check_internals()  # raises when moto builds ThreadedMotoServer's app another way
