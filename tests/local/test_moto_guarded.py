"""devtools/moto_patches/guarded.py: what every patch module relies on, on a stand-in for moto."""

from __future__ import annotations

import pytest

from devtools.moto_patches.guarded import GuardedPatch, Replacement


class Moto:
    def answer(self) -> str:
        return "moto's answer"


def _answer(self: Moto) -> str:
    return "patched: " + PATCH.original(ANSWER)(self)


def _added(self: Moto) -> str:
    return "added"


ANSWER = Replacement(Moto, "answer", _answer)
forgotten: list[str] = []
PATCH = GuardedPatch(
    "tests/local/test_moto_guarded.py",
    [ANSWER, Replacement(Moto, "added", _added)],
    {"Moto.answer": (lambda: Moto.answer, ('return "moto\'s answer"',))},
    holds={"Moto has no extra": lambda: not hasattr(Moto, "extra")},
    on_uninstall=lambda: forgotten.append("forgotten"),
)


def test_a_patch_replaces_adds_and_puts_back() -> None:
    with PATCH.installed():
        assert Moto().answer() == "patched: moto's answer"
        assert Moto().added() == "added"  # type: ignore[attr-defined]
        PATCH.check_internals()  # reads the original while installed
        with PATCH.installed():  # nested: the outer block still has it
            pass
        assert Moto().answer() == "patched: moto's answer"
    assert Moto().answer() == "moto's answer"
    assert not hasattr(Moto, "added")
    assert forgotten == ["forgotten"]
    PATCH.uninstall()  # not installed: nothing to do
    assert forgotten == ["forgotten"]


def test_the_guard_names_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Moto, "answer", lambda self: "another answer")
    with pytest.raises(RuntimeError, match=r"moto changed Moto\.answer, which tests/local/test_moto_guarded\.py"):
        PATCH.install()
    assert not hasattr(Moto, "added")


def test_a_name_gone_is_a_change(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(Moto, "answer")
    with pytest.raises(RuntimeError, match=r"moto changed Moto\.answer"):
        PATCH.check_internals()


def test_a_fact_that_no_longer_holds_is_a_change(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Moto, "extra", 1, raising=False)
    with pytest.raises(RuntimeError, match="moto changed Moto has no extra"):
        PATCH.check_internals()
