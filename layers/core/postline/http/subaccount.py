"""The `subaccount` filter of the routes an organisation asks about its workspaces with (GET
/v3/events, GET /v3/metrics/*, the event export): the caller reading in one of its subaccounts."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from postline.http import context
from postline.http.context import principal
from postline.keys.identity import Principal
from postline.wiring import auth

SubaccountFilter = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=100,
        description="An organisation's key only: read this subaccount's (its id or slug) instead of its own "
        "(another organisation's or a deleted one: 404; from a subaccount's key: 403 organisation_only).",
    ),
]


def principal_in(subaccount: str | None) -> Principal:
    """The caller, or, with a `subaccount` filter, the caller reading in that subaccount."""
    caller = principal()
    return caller if subaccount is None else auth.authenticator().read_in_subaccount(caller, subaccount)


def acting_in(subaccount: str | None) -> Principal:
    """principal_in for a route that writes (starting an event export): the request then acts in the
    subaccount as On-Behalf-Of makes it, so its audit entry, in the subaccount's log, is copied into
    the organisation's (http/app.py)."""
    acting = principal_in(subaccount)
    if subaccount is not None:
        context.current().principal = acting
    return acting
