"""Per-request state shared by the plumbing and the routes (one request per thread at a time)."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from postline.auth.ratelimit import RateDecision
from postline.keys.identity import Principal
from postline.shared.errors import Unauthorized


@dataclass
class RequestState:
    request_id: str
    principal: Principal | None = None
    rate: RateDecision | None = None


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
