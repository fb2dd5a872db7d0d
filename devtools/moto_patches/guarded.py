"""One guarded patch: replaces attributes of moto's classes or modules, after checking that the moto
code it relies on still reads as the patch expects (devtools/moto_patches/README.md says why).

Each patch module builds one GuardedPatch and exposes its `install`, `uninstall`, `installed` and
`check_internals`. The check reads the originals' source even while the patch is installed. A
replacement may also add an attribute the owner did not have (uninstall removes it again), and a
patch may rely on facts other than source lines (`holds`: a constant's value, a name being there).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn

_ABSENT = object()  # the original of an attribute the patch adds


@dataclass(frozen=True)
class Replacement:
    owner: Any  # a class or a module
    name: str
    new: Any


class GuardedPatch:
    def __init__(
        self,
        module: str,
        replacements: Sequence[Replacement],
        relies_on: Mapping[str, tuple[Callable[[], Any], Sequence[str]]],
        holds: Mapping[str, Callable[[], bool]] | None = None,
        on_uninstall: Callable[[], None] | None = None,
        upstream: str = "moto",
    ) -> None:
        """`module` names the patch in errors; `relies_on` maps a name to the moto object it means
        (looked up at check time) and the source lines that object must contain; `holds` maps a
        name to a test of anything else about moto the patch relies on; `on_uninstall` drops what
        the patch kept while installed; `upstream` names whose code it patches, in errors."""
        self._module = module
        self._replacements = replacements
        self._relies_on = relies_on
        self._holds = holds or {}
        self._on_uninstall = on_uninstall
        self._upstream = upstream
        self._originals: dict[Replacement, Any] = {}

    def original(self, replacement: Replacement) -> Any:
        return self._originals[replacement]

    def check_internals(self) -> None:
        for name, (find, lines) in self._relies_on.items():
            if not all(line in self._source(find) for line in lines):
                self._changed(name)
        for name, holds in self._holds.items():
            if not holds():
                self._changed(name)

    def _source(self, find: Callable[[], Any]) -> str:
        """The source of what `find` names (its original while patched); "" when it is gone."""
        try:
            found = find()
            for replacement, original in self._originals.items():
                if found is replacement.new:
                    found = original
            return inspect.getsource(found)
        except (AttributeError, KeyError, OSError, TypeError):  # no such name, or no Python source
            return ""

    def _changed(self, name: str) -> NoReturn:
        raise RuntimeError(f"{self._upstream} changed {name}, which {self._module} relies on; review the patch")

    def install(self) -> None:
        """Patches moto in this process (idempotent)."""
        if self._originals:
            return
        self.check_internals()
        for replacement in self._replacements:
            self._originals[replacement] = vars(replacement.owner).get(replacement.name, _ABSENT)
            setattr(replacement.owner, replacement.name, replacement.new)

    def uninstall(self) -> None:
        if not self._originals:
            return
        for replacement, original in self._originals.items():
            if original is _ABSENT:
                delattr(replacement.owner, replacement.name)
            else:
                setattr(replacement.owner, replacement.name, original)
        self._originals.clear()
        if self._on_uninstall is not None:
            self._on_uninstall()

    @contextmanager
    def installed(self) -> Iterator[None]:
        """The patch for a block (tests that use moto in-process), as it was before afterwards."""
        already = bool(self._originals)
        self.install()
        try:
            yield
        finally:
            if not already:
                self.uninstall()
