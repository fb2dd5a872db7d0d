"""The runtime's garbage collector setting (devtools/local/collector.py): what exists at install and
what survives each full collection is frozen; uninstall puts everything back."""

from __future__ import annotations

import gc

from devtools.local import collector


def test_survivors_of_a_full_collection_are_frozen_until_uninstall() -> None:
    running = collector.installed()  # a runtime of another test in this process may have it on
    collector.uninstall()
    try:
        collector.install()
        frozen = gc.get_freeze_count()
        assert frozen > 0 and collector.installed()
        kept = [[index] for index in range(10_000)]  # tracked containers, alive across the collection
        assert any(item is kept[-1] for item in gc.get_objects())  # young: the collector walks it
        gc.collect()
        assert not any(item is kept[-1] for item in gc.get_objects())  # frozen: no generation holds it
        collector.install()  # idempotent: one callback
        assert gc.callbacks.count(collector._freeze_after_full) == 1
        collector.uninstall()
        assert gc.get_freeze_count() == 0
        assert not collector.installed()
    finally:
        if running:
            collector.install()
