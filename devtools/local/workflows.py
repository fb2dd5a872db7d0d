"""Step Functions executions run on the runtime's movable clock.

moto stores state machines and executions, but its Wait states sleep on the wall clock (or are
skipped) and its Lambda tasks need Docker. So the runtime runs each RUNNING execution itself,
from the definition the template deployed: Wait states wait on the movable clock, Lambda tasks
invoke the local handlers. When an execution ends it is stopped in the emulator, with the
outcome as its error name ("Succeeded" or the failure), so it is not picked up again.

Only the part of the Amazon States Language the template's machines use is understood: Pass,
Wait, Task (lambda:invoke or a function ARN, with Retry), Choice (the common comparison
operators, And/Or/Not), Succeed and Fail; paths are plain `$.a.b` references. Anything else
fails the execution with a clear error rather than behaving differently from AWS.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from devtools.local.activity import Activity
from devtools.local.emulator import Emulator
from devtools.local.functions import LocalFunction

logger = logging.getLogger(__name__)
_LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke"
_MAX_STEPS_PER_TICK = 1_000  # a machine that never waits must not hang the ticker


class WorkflowError(Exception):
    """An ASL feature the local runner does not have, or a broken path."""


class TaskFailed(Exception):
    def __init__(self, error: str, cause: str) -> None:
        super().__init__(f"{error}: {cause}")
        self.error = error
        self.cause = cause


@dataclass
class Execution:
    arn: str
    definition: dict[str, Any]
    state: str
    data: Any
    waiting_until: datetime | None = None
    rerun: bool = False  # when the wait ends: run this state again (a Retry) rather than move on
    retries: dict[str, int] = field(default_factory=dict)


class Workflows:
    """Runs the executions of the given state machines (ARNs), invoking `functions` by their ARN."""

    name = "Step Functions"

    def __init__(
        self, emulator: Emulator, machines: list[str], functions: list[LocalFunction], activity: Activity
    ) -> None:
        self._emulator = emulator
        self._machines = machines
        self._definitions: dict[str, dict[str, Any]] = {}
        self._functions = {function.arn: function for function in functions}
        self._activity = activity
        self._running: dict[str, Execution] = {}
        self._discovered_at = -1  # the emulator's count of control writes at the last discovery

    def fire_due(self, now: datetime) -> None:
        written = self._emulator.control_writes()
        if written != self._discovered_at:  # an execution was started (or stopped) since
            self._discover()
            self._discovered_at = written
        for execution in list(self._running.values()):
            self._run(execution, now)

    # -- discovery ------------------------------------------------------------------------------

    def _discover(self) -> None:
        sfn = self._emulator.client("stepfunctions")
        for machine_arn in self._machines:
            if machine_arn not in self._definitions:
                described = sfn.describe_state_machine(stateMachineArn=machine_arn)
                self._definitions[machine_arn] = json.loads(described["definition"])
            definition = self._definitions[machine_arn]
            for page in sfn.get_paginator("list_executions").paginate(
                stateMachineArn=machine_arn, statusFilter="RUNNING"
            ):
                for summary in page["executions"]:
                    arn = summary["executionArn"]
                    if arn in self._running:
                        continue
                    described = sfn.describe_execution(executionArn=arn)
                    self._running[arn] = Execution(
                        arn=arn,
                        definition=definition,
                        state=definition["StartAt"],
                        data=json.loads(described.get("input") or "{}"),
                    )

    # -- interpretation -------------------------------------------------------------------------

    def _run(self, execution: Execution, now: datetime) -> None:
        for _ in range(_MAX_STEPS_PER_TICK):
            if execution.waiting_until is not None:
                if execution.waiting_until > now:
                    return
                execution.waiting_until = None
                if not execution.rerun and not self._next(execution, self._state(execution)):
                    return  # a Wait that was the last state
                execution.rerun = False
            try:
                if not self._step(execution, now):
                    return
            except WorkflowError as exc:
                self._finish(execution, "States.Runtime", str(exc))
                return
        self._finish(execution, "States.Runtime", f"more than {_MAX_STEPS_PER_TICK} steps without a wait")

    def _state(self, execution: Execution) -> dict[str, Any]:
        states = execution.definition["States"]
        if execution.state not in states:
            raise WorkflowError(f"no state named {execution.state!r}")
        state: dict[str, Any] = states[execution.state]
        return state

    def _step(self, execution: Execution, now: datetime) -> bool:
        """Runs the current state; False when the execution waits or has ended."""
        state = self._state(execution)
        kind = state["Type"]
        if kind == "Pass":
            result = _parameters(state["Parameters"], execution.data) if "Parameters" in state else state.get("Result")
            if "Parameters" in state or "Result" in state:
                execution.data = _result_path(execution.data, result, state.get("ResultPath", "$"))
            return self._next(execution, state)
        if kind == "Wait":
            execution.waiting_until = _wait_until(state, execution.data, now)
            return True  # the loop compares it with now
        if kind == "Task":
            return self._task(execution, state, now)
        if kind == "Choice":
            for choice in state.get("Choices", []):
                if _matches(choice, execution.data):
                    execution.state = choice["Next"]
                    return True
            if "Default" not in state:
                self._finish(execution, "States.NoChoiceMatched", f"no choice of {execution.state} matched")
                return False
            execution.state = state["Default"]
            return True
        if kind == "Succeed":
            self._finish(execution, "Succeeded", json.dumps(execution.data, default=str))
            return False
        if kind == "Fail":
            self._finish(execution, state.get("Error", "States.Fail"), state.get("Cause", ""))
            return False
        raise WorkflowError(f"state type {kind} is not run locally")

    def _next(self, execution: Execution, state: dict[str, Any]) -> bool:
        if state.get("End"):
            self._finish(execution, "Succeeded", json.dumps(execution.data, default=str))
            return False
        execution.state = state["Next"]
        return True

    def _task(self, execution: Execution, state: dict[str, Any], now: datetime) -> bool:
        resource = state["Resource"]
        arguments = _parameters(state["Parameters"], execution.data) if "Parameters" in state else execution.data
        if resource == _LAMBDA_INVOKE:
            function_arn, payload = arguments["FunctionName"], arguments.get("Payload", {})
        elif resource.startswith("arn:aws:lambda:"):
            function_arn, payload = resource, arguments
        else:
            raise WorkflowError(f"task resource {resource} is not run locally")
        function = self._functions.get(function_arn)
        if function is None:
            raise WorkflowError(f"no local function has the ARN {function_arn}")
        try:
            with self._activity.working():
                response = function.invoke(copy.deepcopy(payload))
        except Exception as exc:  # a Lambda error is a task failure the Retry rules see
            return self._task_failed(execution, state, now, TaskFailed(type(exc).__name__, str(exc)))
        result: Any = {"Payload": response, "StatusCode": 200} if resource == _LAMBDA_INVOKE else response
        if "ResultSelector" in state:
            result = _parameters(state["ResultSelector"], result)
        execution.data = _result_path(execution.data, result, state.get("ResultPath", "$"))
        if "OutputPath" in state:
            execution.data = _path(execution.data, state["OutputPath"])
        execution.retries.pop(execution.state, None)
        return self._next(execution, state)

    def _task_failed(self, execution: Execution, state: dict[str, Any], now: datetime, failure: TaskFailed) -> bool:
        names = {failure.error, "States.TaskFailed", "States.ALL"}
        for rule in state.get("Retry", []):
            if names & set(rule["ErrorEquals"]):
                done = execution.retries.get(execution.state, 0)
                if done < rule.get("MaxAttempts", 3):
                    execution.retries[execution.state] = done + 1
                    delay = rule.get("IntervalSeconds", 1) * rule.get("BackoffRate", 2.0) ** done
                    execution.waiting_until = now + timedelta(seconds=delay)
                    execution.rerun = True
                    logger.info("%s: %s failed (%s); retry %d", execution.arn, execution.state, failure, done + 1)
                    return True  # the loop compares the retry time with now
                break
        self._finish(execution, failure.error, failure.cause)
        return False

    def _finish(self, execution: Execution, error: str, cause: str) -> None:
        self._running.pop(execution.arn, None)
        if error != "Succeeded":
            logger.warning("execution %s failed: %s %s", execution.arn, error, cause)
        self._emulator.client("stepfunctions").stop_execution(
            executionArn=execution.arn, error=error[:256], cause=cause[:32_768]
        )


# -- paths and comparisons ----------------------------------------------------------------------


def _path(data: Any, path: str) -> Any:
    if path == "$":
        return data
    if not path.startswith("$."):
        raise WorkflowError(f"path {path!r} is not a plain $.a.b reference")
    value = data
    for part in path[2:].split("."):
        if not isinstance(value, dict) or part not in value:
            raise WorkflowError(f"path {path} does not exist in the state's input")
        value = value[part]
    return value


def _present(data: Any, path: str) -> bool:
    try:
        _path(data, path)
    except WorkflowError:
        return False
    return True


def _parameters(template: Any, data: Any) -> Any:
    if isinstance(template, dict):
        resolved = {}
        for name, value in template.items():
            if name.endswith(".$"):
                if not isinstance(value, str) or value.startswith("States."):
                    raise WorkflowError(f"intrinsic functions are not run locally: {value}")
                resolved[name[:-2]] = _path(data, value)
            else:
                resolved[name] = _parameters(value, data)
        return resolved
    if isinstance(template, list):
        return [_parameters(value, data) for value in template]
    return template


def _result_path(data: Any, result: Any, path: str | None) -> Any:
    if path is None:
        return data  # ResultPath null: discard the result
    if path == "$":
        return result
    if not path.startswith("$.") or not isinstance(data, dict):
        raise WorkflowError(f"ResultPath {path!r} is not supported here")
    merged = copy.deepcopy(data)
    target = merged
    parts = path[2:].split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = result
    return merged


def _wait_until(state: dict[str, Any], data: Any, now: datetime) -> datetime:
    if "Seconds" in state:
        return now + timedelta(seconds=state["Seconds"])
    if "SecondsPath" in state:
        return now + timedelta(seconds=float(_path(data, state["SecondsPath"])))
    text = state.get("Timestamp") or _path(data, state["TimestampPath"])
    if not isinstance(text, str):
        raise WorkflowError(f"Wait timestamp is not a string: {text!r}")
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "BooleanEquals": lambda a, b: a is b,
    "StringEquals": lambda a, b: a == b,
    "NumericEquals": lambda a, b: a == b,
    "NumericLessThan": lambda a, b: a < b,
    "NumericGreaterThan": lambda a, b: a > b,
    "NumericLessThanEquals": lambda a, b: a <= b,
    "NumericGreaterThanEquals": lambda a, b: a >= b,
}


def _matches(rule: dict[str, Any], data: Any) -> bool:
    if "And" in rule:
        return all(_matches(inner, data) for inner in rule["And"])
    if "Or" in rule:
        return any(_matches(inner, data) for inner in rule["Or"])
    if "Not" in rule:
        return not _matches(rule["Not"], data)
    variable = rule["Variable"]
    if "IsPresent" in rule:
        return _present(data, variable) is rule["IsPresent"]
    if "IsNull" in rule:
        return _present(data, variable) and (_path(data, variable) is None) is rule["IsNull"]
    for name, compare in _COMPARISONS.items():
        if name in rule:
            return _present(data, variable) and bool(compare(_path(data, variable), rule[name]))
    raise WorkflowError(f"choice operator not run locally: {sorted(rule)}")
