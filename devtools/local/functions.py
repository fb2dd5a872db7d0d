"""The template's Lambda functions, run in this process.

Each function's handler module is loaded by file path into a module of its own, so functions
that share a file still have separate globals, like separate containers. Handlers import only
the layer (`postline`), never their siblings: shared code lives in the layer. A function runs
concurrent invocations in separate instances (each its own copy of the module, one invocation
at a time, as one Lambda execution environment; Powertools keeps its current event on a class, so
powertools_context.py makes that per invocation), and abandons an invocation past its Timeout.
Each invocation may read only the settings groups its module declares (`SETTINGS`): the
environment here is every function's at once, so without that check a function whose declaration
forgot a group would pass here and fail its cold start in AWS.
"""

from __future__ import annotations

import contextvars
import importlib.util
import logging
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devtools.local import powertools_clock, powertools_context
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
from postline.shared.base import created_models

logger = logging.getLogger(__name__)
Handler = Callable[[Any, Any], Any]
powertools_context.install()  # concurrent instances share Powertools: its current event per invocation
powertools_clock.install()  # idempotency records expire on the runtime's clock, as the emulator sweeps them
# What the gateway, pumps and schedules read of each event type; anything else is reported.
_EMULATED_EVENT_PROPERTIES = {
    "Api": {"Path", "Method", "RestApiId"},
    # ScalingConfig's MaximumConcurrency: that many batches at once, at most 4 locally (pumps.py).
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


class FunctionTimeout(Exception):
    """The invocation ran past the function's Timeout; Lambda stops it and reports this error."""


class IntegrationTimeout(Exception):
    """The caller stopped waiting (API Gateway's 29 s) while the function runs on."""


class FunctionCrashed(Exception):
    """The handler's process died mid-invocation (a BaseException no handler code catches: the
    crash tests' kill): Lambda reports "Runtime exited" and never reuses that instance."""


@dataclass
class _Instance:
    """One loaded copy of the handler module: an execution environment, one invocation at a time."""

    handler: Handler
    settings: tuple[Any, ...] | None  # the module's SETTINGS: the groups an invocation may read


@dataclass
class LocalFunction:
    logical_id: str
    handler: str  # module.attr, as in the template
    code_dir: Path
    memory: int
    timeout: int
    events: dict[str, dict[str, Any]]
    # Concurrent invocations each get an instance, as Lambda scales out; past this many they wait.
    max_instances: int = 10
    _idle: list[_Instance] = field(default_factory=list, init=False, repr=False)
    _live: int = field(default=0, init=False, repr=False)  # instances loaded and not abandoned
    _loads: int = field(default=0, init=False, repr=False)
    _slots: threading.Condition = field(default_factory=threading.Condition, init=False, repr=False)

    @property
    def name(self) -> str:
        return physical_name(self.logical_id)

    @property
    def arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{self.name}"

    def invoke(self, event: Any, wait: float | None = None) -> Any:
        """Runs the handler on `event` in an instance of its own, as Lambda's synchronous Invoke.

        Past the function's Timeout the invocation is abandoned and FunctionTimeout raised: its
        instance is never used again (Lambda would stop it; a thread cannot be stopped, so its work
        may still finish in the background). With `wait` shorter than the Timeout, IntegrationTimeout
        is raised when the caller's wait runs out and the function goes on, as behind API Gateway.
        """
        instance = self._acquire()
        done: Future[Any] = Future()
        context = InvocationContext(
            function_name=self.name,
            memory_limit_in_mb=self.memory,
            invoked_function_arn=self.arn,
            aws_request_id=str(uuid.uuid4()),
            deadline=time.monotonic() + self.timeout,
        )
        abandoned = threading.Event()

        def run() -> None:
            crashed = False
            try:
                with wiring.settings_scope(instance.settings) if instance.settings is not None else nullcontext():
                    done.set_result(instance.handler(event, context))
            except Exception as exc:
                done.set_exception(exc)
            except BaseException as exc:
                crashed = True
                done.set_exception(FunctionCrashed(f"{self.name}: Runtime exited ({type(exc).__name__})"))
            finally:
                if crashed and not abandoned.is_set():
                    self._abandon()
                elif not abandoned.is_set():
                    self._release(instance)

        # A fresh context per invocation: nothing of the caller's context variables leaks in.
        # Named after its caller too: a pump's or a request's work stays recognisable (the bench's
        # recorder sorts AWS calls by thread name).
        name = f"{threading.current_thread().name} > {self.name}"
        thread = threading.Thread(target=contextvars.Context().run, args=(run,), name=name, daemon=True)
        thread.start()
        limit = self.timeout if wait is None else min(wait, self.timeout)
        try:
            return done.result(timeout=limit)
        except FutureTimeout:
            if limit < self.timeout:
                raise IntegrationTimeout(f"{self.name} did not answer within {limit:g} s") from None
            abandoned.set()
            self._abandon()
            logger.error("%s: Task timed out after %.2f seconds", self.name, self.timeout)
            raise FunctionTimeout(f"Task timed out after {self.timeout:.2f} seconds") from None

    def _acquire(self) -> _Instance:
        with self._slots:
            while not self._idle and self._live >= self.max_instances:
                self._slots.wait()
            if self._idle:
                return self._idle.pop()
            self._live += 1
        try:
            return self._load()
        except BaseException:
            self._abandon()
            raise

    def _release(self, instance: _Instance) -> None:
        with self._slots:
            self._idle.append(instance)
            self._slots.notify()

    def _abandon(self) -> None:
        with self._slots:
            self._live -= 1
            self._slots.notify()

    def _load(self) -> _Instance:
        module_path, _, attribute = self.handler.rpartition(".")
        path = self.code_dir / f"{module_path.replace('.', '/')}.py"
        with self._slots:
            self._loads += 1
            module_name = f"postline_local_{self.logical_id}_{self._loads}"
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
        complete_shared_models()
        logger.debug("loaded %s from %s as %s", self.handler, path, module_name)
        return _Instance(getattr(module, attribute), getattr(module, "SETTINGS", None))


_MODELS_BUILDING = threading.Lock()


def complete_shared_models() -> None:
    """Builds every layer model still deferred (postline/shared/base.py: `defer_build`), one
    thread at a time. In AWS each execution environment has its own copy of the layer, so a model
    is built by the one request that first uses it. Here every instance of every function shares
    the layer's classes, and pydantic's lazy build is not safe across threads (pydantic#13419,
    #11849): two cold routes using one model at once could see it half-built and fail their reply's
    validation. A handler module imports everything its routes use, so after its load nothing it
    touches is left to build lazily. Models an invocation imports later (the composition root's
    lazy imports) are listed only once created: one still being created in another thread is left
    to its first use (pydantic's own build, under its lock)."""
    with _MODELS_BUILDING:
        for model in created_models():
            if not model.__pydantic_complete__:
                model.model_rebuild(raise_errors=False)


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
    """Globals.Function.Environment plus each function's own variables, resolved, and the Fargate
    tasks' container variables (the relay task runs in this process too).

    In-process handlers share one os.environ, so two functions may not give one variable
    two different values.
    """
    sources = [("Globals", template.function_globals)] + [
        (logical_id, resource.get("Properties") or {})
        for logical_id, resource in template.of_type("AWS::Serverless::Function").items()
    ]
    for logical_id, resource in template.of_type("AWS::ECS::TaskDefinition").items():
        for container in (resource.get("Properties") or {}).get("ContainerDefinitions") or []:
            pairs = {pair["Name"]: pair["Value"] for pair in container.get("Environment") or []}
            sources.append((logical_id, {"Environment": {"Variables": pairs}}))
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
