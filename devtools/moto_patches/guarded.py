"""One guarded patch: replaces attributes of moto's classes or modules, after checking that the moto
code it relies on still reads as the patch expects (devtools/moto_patches/README.md says why).

Each patch module builds one GuardedPatch and exposes its `install`, `uninstall`, `installed` and
`check_internals`. The check reads the originals' source even while the patch is installed.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


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
    ) -> None:
        """`module` names the patch in errors; `relies_on` maps a name to the moto object it means
        (looked up at check time) and the source lines that object must contain."""
        self._module = module
        self._replacements = replacements
        self._relies_on = relies_on
        self._originals: dict[Replacement, Any] = {}

    def original(self, replacement: Replacement) -> Any:
        return self._originals[replacement]

    def check_internals(self) -> None:
        for name, (find, lines) in self._relies_on.items():
            found = find()
            for replacement, original in self._originals.items():
                if found is replacement.new:
                    found = original
            if not all(line in inspect.getsource(found) for line in lines):
                raise RuntimeError(f"moto changed {name}, which {self._module} relies on; review the patch")

    def install(self) -> None:
        """Patches moto in this process (idempotent)."""
        if self._originals:
            return
        self.check_internals()
        for replacement in self._replacements:
            self._originals[replacement] = vars(replacement.owner)[replacement.name]
            setattr(replacement.owner, replacement.name, replacement.new)

    def uninstall(self) -> None:
        for replacement, original in self._originals.items():
            setattr(replacement.owner, replacement.name, original)
        self._originals.clear()

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
