"""moto's models, no longer each kept in a list for the life of the process.

Why: moto 5.2's `BaseModel.__new__` appends every instance of every model class to its class's
`instances_tracked` list, for moto's dashboard (`/moto-api/data.json`) and for `reset()` (S3
closes its keys' files). Nothing ever takes one out but a reset, which the emulator never does.
So every DynamoDB `Item` moto builds stays: each item written, each version an update or a
transaction's backup deep-copies, each deleted or expired item, and every stream record (after
stream_trims.py has trimmed it), shard iterator (after it expired), SQS message (after it was
deleted), S3 key... A soak's emulator (docs/benchmarks.md, "Soak") held ~15 bytes of memory per
byte of what it stored, and grew 2,860 MB an hour while its snapshot grew 182 MB: most of it was
this list. tracemalloc named `moto/core/common_models.py:13` (the append) and `Item.__deepcopy__`
among the lines that grew each minute.

How: `BaseModel.__new__` makes the instance as moto's does (`object.__new__`) without appending it.
What is lost: `/moto-api/data.json` lists no instances (the project does not use it; the state is
in moto's backends, which snapshots pickle), and S3's `reset()` no longer closes the files of keys
already gone from their buckets (a reset also drops the backends, so those files close when
collected; the emulator never resets).

Guard: `install()` checks that moto still appends to `instances_tracked` in `BaseModel.__new__`
and that only its dashboard, S3's reset and its own reset read the lists, and raises otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import moto
from moto.core.common_models import BaseModel

from devtools.moto_patches.guarded import GuardedPatch, Replacement

# The modules of moto that read instances_tracked, as of 5.2.5 (besides where it is defined).
_READERS = {"moto/s3/models.py", "moto/moto_api/_internal/responses.py", "moto/core/model_instances.py"}


def _new(cls: type, *args: Any, **kwargs: Any) -> Any:
    return object.__new__(cls)


def _only_known_readers() -> bool:
    root = Path(moto.__file__).parent
    readers = set()
    for path in root.rglob("*.py"):
        if "instances_tracked" in path.read_text(errors="replace"):
            readers.add("moto/" + path.relative_to(root).as_posix())
    return readers - {"moto/core/common_models.py", "moto/core/base_backend.py"} == _READERS


_PATCH = GuardedPatch(
    "devtools/moto_patches/instance_tracking.py",
    [Replacement(BaseModel, "__new__", staticmethod(_new))],
    {  # what it relies on, as moto 5.2.5 writes it
        "BaseModel.__new__": (
            lambda: sys.modules[BaseModel.__module__],
            ("instance = super().__new__(cls)", "cls.instances_tracked.append(instance)"),
        ),
    },
    holds={"who reads instances_tracked": _only_known_readers},
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
