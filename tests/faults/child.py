"""`python -m tests.faults.child --fault-file PATH ARGS`: `python -m devtools.local ARGS` whose AWS calls
a parent test strikes through PATH (crash.py's ArmedByFile and ChildFault): for workers whose
workloads move the clock by days, which must not age the data of the tests sharing the session's
runtime (tests/faults/test_crash_daily.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from devtools.local.__main__ import main
from tests.faults.crash import ArmedByFile


def run(argv: list[str]) -> int:
    at = argv.index("--fault-file")
    path = Path(argv[at + 1])
    ArmedByFile(path).install()
    return main(argv[:at] + argv[at + 2 :])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
