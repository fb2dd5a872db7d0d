"""The template's Lambda functions, run in this process.

Each function's handler module is loaded by file path into a module of its own, so functions
that share a file still have separate globals, like separate containers. Handlers import only
the layer (`postline`), never their siblings: shared code lives in the layer. One invocation at
a time per function, as in one Lambda container: Powertools' resolver keeps the current event
on the app object. Each invocation may read only the settings groups its module declares
(`SETTINGS`): the environment here is every function's at once, so without that check a function
whose declaration forgot a group would pass here and fail its cold start in AWS.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devtools.local.cloudformation import (
    ACCOUNT_ID,
    REGION,
    Resolver,
    Template,
    TemplateError,
    physical_name,
    scalar,
)
from postline import wiring

logger = logging.getLogger(__name__)
Handler = Callable[[Any, Any], Any]
# What the gateway, pumps and schedules read of each event type; anything else is reported.
_EMULATED_EVENT_PROPERTIES = {
    "Api": {"Path", "Method", "RestApiId"},
    # ScalingConfig's MaximumConcurrency (2 or more) holds locally: a pump runs one batch at a time.
    "SQS": {
        "Queue",
        "BatchSize",
        "MaximumBatchingWindowInSeconds",
        "FunctionResponseTypes",
        "Enabled",
        "ScalingConfig",
    },
    "DynamoDB": {
        "Stream",
        "BatchSize",
        "MaximumBatchingWindowInSeconds",
        "StartingPosition",
        "FunctionResponseTypes",
        "Enabled",
        "FilterCriteria",  # applied by the stream pump (lambda_filters.py)
    },
    "Schedule": {"Schedule", "Input", "Enabled", "State", "Name", "Description"},
    "ScheduleV2": {"ScheduleExpression", "ScheduleExpressionTimezone", "Input", "State", "Name", "Description"},
}


@dataclass(frozen=True)
class InvocationContext:
    """The parts of Lambda's context object that handlers and Powertools read."""

    function_name: str
    memory_limit_in_mb: int
    invoked_function_arn: str
    aws_request_id: str
    deadline: float  # time.monotonic() when the function's Timeout runs out
    function_version: str = "$LATEST"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return "local"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


@dataclass
class LocalFunction:
    logical_id: str
    handler: str  # module.attr, as in the template
    code_dir: Path
    memory: int
    timeout: int
    events: dict[str, dict[str, Any]]
    _loaded: Handler | None = field(default=None, init=False, repr=False)
    _settings: tuple[Any, ...] | None = field(default=None, init=False, repr=False)  # its module's SETTINGS
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @property
    def name(self) -> str:
        return physical_name(self.logical_id)

    @property
    def arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{self.name}"

    def invoke(self, event: Any) -> Any:
        with self._lock:
            handler = self._handler()
            context = InvocationContext(
                function_name=self.name,
                memory_limit_in_mb=self.memory,
                invoked_function_arn=self.arn,
                aws_request_id=str(uuid.uuid4()),
                deadline=time.monotonic() + self.timeout,
            )
            with wiring.settings_scope(self._settings) if self._settings is not None else nullcontext():
                return handler(event, context)

    def _handler(self) -> Handler:
        if self._loaded is None:
            self._loaded = self._load()
        return self._loaded

    def _load(self) -> Handler:
        module_path, _, attribute = self.handler.rpartition(".")
        path = self.code_dir / f"{module_path.replace('.', '/')}.py"
        module_name = f"postline_local_{self.logical_id}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise TemplateError(f"{self.logical_id}: handler module {path} does not exist")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # pydantic and dataclasses look modules up by name
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
        handler: Handler = getattr(module, attribute)
        self._settings = getattr(module, "SETTINGS", None)
        logger.debug("loaded %s from %s", self.handler, path)
        return handler


def load_functions(template: Template) -> dict[str, LocalFunction]:
    """Every AWS::Serverless::Function, with Globals.Function applied as SAM applies it."""
    defaults = template.function_globals
    functions = {}
    for logical_id, resource in template.of_type("AWS::Serverless::Function").items():
        props = {**defaults, **(resource.get("Properties") or {})}
        code_uri = props.get("CodeUri")
        if not isinstance(code_uri, str):
            raise TemplateError(f"{logical_id}: the local runtime needs CodeUri as a local folder")
        functions[logical_id] = LocalFunction(
            logical_id=logical_id,
            handler=props["Handler"],
            code_dir=(template.root / code_uri).resolve(),
            memory=int(props.get("MemorySize", 128)),
            timeout=int(props.get("Timeout", 3)),
            events=props.get("Events") or {},
        )
    return functions


def warn_unsupported_events(functions: Iterable[LocalFunction]) -> None:
    """Says which events, and which of their properties, do nothing locally."""
    for function in functions:
        for name, event in function.events.items():
            event_type = event.get("Type")
            supported = _EMULATED_EVENT_PROPERTIES.get(str(event_type))
            if supported is None:
                logger.warning("%s.%s: %s events are not emulated locally", function.logical_id, name, event_type)
                continue
            ignored = set(event.get("Properties") or {}) - supported
            if ignored:
                logger.warning("%s.%s: %s ignored locally", function.logical_id, name, ", ".join(sorted(ignored)))


def event_enabled(props: dict[str, Any]) -> bool:
    """Event sources turn off with `Enabled: false`; schedules also with `State: DISABLED`."""
    return scalar(props.get("Enabled", True)) != "false" and scalar(props.get("State", "ENABLED")) != "DISABLED"


def function_environment(template: Template, resolver: Resolver) -> dict[str, str]:
    """Globals.Function.Environment plus each function's own variables, resolved.

    In-process handlers share one os.environ, so two functions may not give one variable
    two different values.
    """
    sources = [("Globals", template.function_globals)] + [
        (logical_id, resource.get("Properties") or {})
        for logical_id, resource in template.of_type("AWS::Serverless::Function").items()
    ]
    environment: dict[str, str] = {}
    owner: dict[str, str] = {}
    for source, props in sources:
        variables = (props.get("Environment") or {}).get("Variables") or {}
        for name, value in resolver.resolve(variables).items():
            text = scalar(value)
            if name in environment and environment[name] != text:
                raise TemplateError(
                    f"{source} and {owner[name]} set {name} differently; "
                    "the local runtime runs every function in one environment"
                )
            environment[name] = text
            owner[name] = source
    return environment
