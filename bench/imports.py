"""i. Cold start: how long each function's module takes to import, against its dependencies alone.

A Lambda's cold start is its runtime's start plus the import of its handler's module. The part the
code controls is what importing the module costs beyond the third-party packages it needs. Each
module is imported in a fresh interpreter with the function's environment (its settings load at
import: `wiring.cold_start`), then, in another fresh interpreter, exactly the third-party packages
that import loaded, in the same order; alternately, several times, medians compared. Both probes
count the process's CPU time, not wall time: an import is CPU-bound, and on a shared machine the
wall-clock ratios moved by ±0.05 between runs with the other work there. A package
loaded by a module that few of its routes need (jinja2, cryptography, dkim) shows in the list, and
the fix is to import it where it is used.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
LAYER = ROOT / "layers" / "core"
AIM = 1.2  # a module imports in at most 1.2x its dependencies alone
HEAVY = ("jinja2", "cryptography", "dkim", "nacl", "jwt", "jsonschema", "email_validator", "dns", "publicsuffixlist")

_MODULE_PROBE = """
import json, sys, time
before = set(sys.modules)
started = time.process_time()
import {module}
seconds = time.process_time() - started
print(json.dumps([seconds, [name for name in sys.modules if name not in before]]))
"""
# The packages alone load with the collector in the state the module's import had for them: on
# until `postline` was imported (postline/__init__.py turns it off in a Lambda), off from there on.
_DEPENDENCIES_PROBE = """
import gc, importlib, json, sys, time
names, off_from = json.loads(sys.argv[1]), int(sys.argv[2])
started = time.process_time()
for position, name in enumerate(names):
    if position == off_from:
        gc.disable()
    try:
        importlib.import_module(name)
    except Exception:  # a name some package put in sys.modules that is not importable by itself
        pass
print(json.dumps(time.process_time() - started))
"""


@dataclass(frozen=True)
class ModuleImport:
    module: str  # functions/api/sending.py -> "api/sending"
    functions: int  # functions deployed from it
    seconds: float  # median
    dependencies_seconds: float  # median, the same third-party packages alone
    ratio: float
    heavy: list[str]  # heavy packages it loads

    @property
    def within(self) -> bool:
        return self.ratio <= AIM


def handler_modules(template: Path) -> dict[tuple[str, str], int]:
    """(code folder, module) -> how many functions the template deploys from it."""
    document = yaml.safe_load(template.read_text())
    globals_ = document.get("Globals", {}).get("Function", {})
    modules: dict[tuple[str, str], int] = {}
    for resource in document["Resources"].values():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        props = {**globals_, **resource.get("Properties", {})}
        key = (str(props["CodeUri"]).rstrip("/"), str(props["Handler"]).rsplit(".", 1)[0])
        modules[key] = modules.get(key, 0) + 1
    return modules


def measure(template: Path, environment: dict[str, str], repeats: int = 5) -> list[ModuleImport]:
    results = []
    for (folder, module), count in sorted(handler_modules(template).items()):
        env = {
            **environment,
            "PYTHONPATH": os.pathsep.join([str(ROOT / folder), str(LAYER)]),
            "AWS_LAMBDA_FUNCTION_NAME": f"postline-{module}",  # as Lambda's init has it (postline/__init__.py)
        }
        seconds: list[float] = []
        alone: list[float] = []
        dependencies: list[str] = []
        for _ in range(repeats):
            took, loaded = json.loads(_python(_MODULE_PROBE.format(module=module), env))
            seconds.append(took)
            dependencies = [name for name in loaded if _third_party(name, module)]
            before_layer = loaded[: loaded.index("postline")] if "postline" in loaded else loaded
            off_from = sum(1 for name in before_layer if _third_party(name, module))
            alone.append(json.loads(_python(_DEPENDENCIES_PROBE, env, json.dumps(dependencies), str(off_from))))
        median, base = statistics.median(seconds), statistics.median(alone)
        results.append(
            ModuleImport(
                module=f"{Path(folder).name}/{module}",
                functions=count,
                seconds=median,
                dependencies_seconds=base,
                ratio=median / base if base else float("inf"),
                heavy=[name for name in HEAVY if name in dependencies],
            )
        )
    return results


def _third_party(name: str, module: str) -> bool:
    top = name.split(".")[0]
    return not (top in sys.stdlib_module_names or top.startswith("_") or top in (module, "postline"))


def _python(code: str, env: dict[str, str], *args: str) -> str:
    command = [sys.executable, "-c", code, *args]  # this interpreter, our own probe code
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)  # noqa: S603
    if done.returncode:
        raise RuntimeError(f"importing failed:\n{done.stderr[-3000:]}")
    return done.stdout
