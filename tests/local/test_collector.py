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
        gc.collect()
        assert gc.get_freeze_count() >= frozen + len(kept)
        collector.install()  # idempotent: one callback
        assert gc.callbacks.count(collector._freeze_after_full) == 1
        collector.uninstall()
        assert gc.get_freeze_count() == 0
        assert not collector.installed()
    finally:
        if running:
            collector.install()
