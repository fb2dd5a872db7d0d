"""Settings groups: each function reads only the groups it declares, even through cached accessors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.local.functions import LocalFunction
from postline import wiring
from postline.config import Counters, Resources, SendQueue, SettingsError
from postline.wiring import sending

STACK = {
    "RESOURCES_TABLE": "resources",
    "COUNTERS_TABLE": "counters",
    "SEND_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/send",
    "SEND_QUEUE_ARN": "arn:aws:sqs:us-east-1:123456789012:send",
    "SCHEDULER_ROLE_ARN": "arn:aws:iam::123456789012:role/scheduler",
    "QUEUE_MAX_DELAY_SECONDS": "900",
    # Clients are built, never called: no endpoint is contacted.
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}


@pytest.fixture(autouse=True)
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in STACK.items():
        monkeypatch.setenv(name, value)
    wiring.reset()
    yield
    monkeypatch.undo()
    wiring.reset()


def test_a_group_reads_its_variables_and_names_the_one_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert wiring.settings(SendQueue).max_delay_seconds == 900
    monkeypatch.delenv("SCHEDULER_ROLE_ARN")
    wiring.reset()
    with pytest.raises(SettingsError, match="SendQueue settings: SCHEDULER_ROLE_ARN missing"):
        wiring.settings(SendQueue)


def test_an_empty_table_name_is_refused_at_load() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RESOURCES_TABLE", "")
        wiring.reset()
        with pytest.raises(SettingsError, match="RESOURCES_TABLE"):
            wiring.require(Resources)


def test_within_a_scope_an_undeclared_group_is_refused() -> None:
    with wiring.settings_scope((Resources, Counters)):
        assert wiring.settings(Resources).table == "resources"
        with pytest.raises(SettingsError, match="reads SendQueue but does not declare it"):
            wiring.settings(SendQueue)


def test_a_cached_accessor_built_elsewhere_still_counts_what_its_build_read() -> None:
    sending.dispatch_queue()  # built, and cached, outside any function: it read SendQueue
    with wiring.settings_scope((Resources,)), pytest.raises(SettingsError, match="SendQueue"):
        sending.dispatch_queue()
    with wiring.settings_scope((SendQueue,)):
        sending.dispatch_queue()


def test_the_local_runtime_holds_an_invocation_to_its_module_declaration(tmp_path: Path) -> None:
    (tmp_path / "reader.py").write_text(
        "from postline import wiring\n"
        "from postline.config import Resources\n"
        "from postline.wiring import accounts, sending\n"
        "SETTINGS = wiring.require(Resources)\n"
        "def handler(event, context):\n"
        "    root, accessor = event.split('.')\n"
        "    return getattr({'accounts': accounts, 'sending': sending}[root], accessor)()\n"
    )
    function = LocalFunction("ReaderFunction", "reader.handler", tmp_path, memory=128, timeout=3, events={})

    assert function.invoke("accounts.account_store") is not None
    with pytest.raises(SettingsError, match="SendQueue"):
        function.invoke("sending.dispatch_queue")
