"""Powertools' current event, per invocation instead of per process.

Why: Powertools' resolver keeps the event it is resolving on its base class (`BaseRouter.current_event
= ...` in `resolve`; `lambda_context` likewise), one process being one Lambda execution environment,
one invocation at a time. The embedded runtime runs concurrent invocations of every API function in
one process (functions.py), so two requests at once overwrote each other's event: the console's
Overview, four metrics calls at once, saw the breakdown validated against the timeseries' query
(`query.dimension: Field required`, a 400 for a request that had it).

How: the base class gets a metaclass whose `current_event` and `lambda_context` are properties over
context variables, and the same properties on the class for instances; every invocation runs in a
context of its own (functions.py), so each sees its own event. In Lambda nothing changes: this
module is the runtime's, never the layer's.

Guard: `install()` checks that Powertools still keeps them on `BaseRouter` in `resolve`, and raises
otherwise, so an upgrade that moves them stops the runtime loudly.
"""

from __future__ import annotations

import inspect
from abc import ABCMeta
from contextvars import ContextVar
from typing import Any

from aws_lambda_powertools.event_handler import api_gateway
from aws_lambda_powertools.event_handler.api_gateway import ApiGatewayResolver, BaseRouter

_event: ContextVar[Any] = ContextVar("powertools_current_event", default=None)
_context: ContextVar[Any] = ContextVar("powertools_lambda_context", default=None)


def _per_invocation(var: ContextVar[Any]) -> property:
    def get(_: Any) -> Any:
        return var.get()

    def set_(_: Any, value: Any) -> None:
        var.set(value)

    return property(get, set_)


class _PerInvocation(ABCMeta):
    current_event = _per_invocation(_event)
    lambda_context = _per_invocation(_context)


def install() -> None:
    if isinstance(BaseRouter, _PerInvocation):
        return
    source = inspect.getsource(ApiGatewayResolver.resolve)
    if "BaseRouter.current_event = " not in source or "BaseRouter.lambda_context = " not in source:
        raise RuntimeError(
            f"{api_gateway.__name__}: resolve no longer keeps the event on BaseRouter; "
            "devtools/local/powertools_context.py needs a look"
        )
    # Instances' reads and writes: properties in the class (set while its metaclass is still ABCMeta,
    # whose setattr stores them); then class-level ones go through the new metaclass's properties.
    BaseRouter.current_event = _per_invocation(_event)  # type: ignore[assignment]
    BaseRouter.lambda_context = _per_invocation(_context)  # type: ignore[assignment]
    BaseRouter.__class__ = _PerInvocation  # type: ignore[method-assign, assignment]
