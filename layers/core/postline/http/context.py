"""Per-request state shared by the plumbing and the routes (one request per thread at a time)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from postline.auth.ratelimit import RateDecision
from postline.auth.speculation import Confirmation
from postline.keys.identity import Principal
from postline.shared.errors import Unauthorized


@dataclass
class RequestState:
    request_id: str
    principal: Principal | None = None
    rate: RateDecision | None = None
    # Set while the route runs on a remembered principal (auth/speculation.py): its admission to join.
    confirmation: Confirmation | None = None


_state: ContextVar[RequestState] = ContextVar("postline_request")


def begin(request_id: str) -> RequestState:
    state = RequestState(request_id)
    _state.set(state)
    return state


def current() -> RequestState:
    return _state.get()


def principal() -> Principal:
    """The authenticated caller; the auth middleware sets it before any route runs."""
    found = _state.get().principal
    if found is None:
        raise Unauthorized("Authentication required.")
    return found


def confirmation() -> Callable[[], None] | None:
    """What a speculative route's use case calls before its first durable write (it returns once the
    request is admitted as its principal, else raises), or None when the principal is admitted already."""
    pending = _state.get().confirmation
    return pending.confirm if pending is not None else None
