"""A Lambda's init imports the project's modules with the garbage collector off, and the handler's
`wiring.cold_start` freezes what they made and turns it back on (postline/__init__.py says why). In
fresh interpreters: the collector's state is the process's."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.aws_stack import ROOT

_PROBE = """
import gc, json, sys
import postline
from postline import config, wiring
on_after_import = gc.isenabled()
wiring.require = lambda *groups: ()  # the function's settings are not what this checks
wiring.cold_start(sys.argv[1])
print(json.dumps([on_after_import, gc.isenabled(), gc.get_freeze_count() > 0]))
"""


def _collector_states(lambda_name: str | None) -> str:
    env = {name: value for name, value in os.environ.items() if name != "AWS_LAMBDA_FUNCTION_NAME"}
    if lambda_name is not None:
        env["AWS_LAMBDA_FUNCTION_NAME"] = lambda_name
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    handler = str(ROOT / "functions" / "workers" / "dispatcher.py")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, handler], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout.strip().splitlines()[-1]


def test_in_a_lambda_init_the_collector_is_off_until_cold_start_and_the_imports_are_frozen() -> None:
    assert _collector_states("postline-dispatcher") == "[false, true, true]"


def test_elsewhere_the_collector_is_never_off_and_nothing_is_frozen() -> None:
    assert _collector_states(None) == "[true, true, false]"
