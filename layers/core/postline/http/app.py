"""Builds the Powertools resolver every route runs in, and the Lambda entry point around it.

One place for: authentication, acting for a subaccount (On-Behalf-Of), scopes and modes, the rate
windows and their headers, the request id header, what a body may be (http/body.py), and the error
body of every failure (including bad JSON, schema violations as 400, not 422, and unexpected errors
as 500 with no stack trace leaked).
Authentication runs in the entry point, ahead of the resolver, so it comes before request validation;
on a speculative route (POST /v3/messages) whose key this instance admitted before, the route runs
on that principal while the admission is made, and its answer waits for it (auth/speculation.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent
from aws_lambda_powertools.utilities.typing import LambdaContext

from postline.audit import organisation_copies
from postline.audit.domain import AuditEntry
from postline.audit.organisation_copies import OnBehalf, copying_in_transactions
from postline.audit.service import entries_made, organisation_copy
from postline.auth.service import Admission, RouteRule
from postline.auth.speculation import Confirmation
from postline.http import body, context
from postline.http.errors import describe_validation_errors, error_json, is_json_error
from postline.keys.access import Access
from postline.observability import logger, metrics, tracer
from postline.routes import find_route
from postline.shared.errors import ApiError, NotFound
from postline.subaccounts.domain import ON_BEHALF_OF
from postline.wiring import audit, auth, shared
from postline.wiring.registry import client as wiring_client

REQUEST_ID_HEADER = "X-Request-Id"
INTERNAL_ERROR = "Something went wrong on our side; retry with backoff."
LambdaHandler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response[str]:
    return Response(
        status_code=status,
        content_type="application/json",
        body=error_json(code, message, context.current().request_id),
        headers=headers or {},
    )


def _authenticate(event: APIGatewayProxyEvent) -> None:
    """Runs before Powertools resolves the route: its request validation would otherwise answer
    a keyless request with a bad body 400 instead of 401 (it runs ahead of any middleware).
    A public route needs no key but still counts in its source address's rate window.
    A speculative route (routes.py) whose key this instance admitted before runs on that principal
    at once, its admission left to join (`_confirmed`; auth/speculation.py)."""
    route = find_route(event.http_method, event.resource)
    if route is None:
        return  # no such route: the resolver answers 404
    source_ip = event.request_context.identity.source_ip
    authenticator = auth.authenticator()
    if route.access is Access.PUBLIC:
        _admitted(authenticator.admit_public(source_ip))
        return
    authorizations = _header_values(event, "Authorization")
    on_behalf_of = _header_values(event, ON_BEHALF_OF)
    rule = RouteRule(route.access, route.live_only)
    speculated = authenticator.speculate(authorizations, source_ip, rule, on_behalf_of) if route.speculative else None
    if speculated is None:
        _admitted(authenticator.admit(authorizations, source_ip, rule, on_behalf_of=on_behalf_of))
        return
    state = context.current()
    state.principal = speculated
    state.confirmation = Confirmation(
        lambda: authenticator.admit(authorizations, source_ip, rule, on_behalf_of=on_behalf_of), speculated
    )


def _admitted(admission: Admission) -> None:
    """The request's window, and its principal or its refusal (raised)."""
    state = context.current()
    state.rate = admission.rate
    if admission.refusal is not None:
        raise admission.refusal
    state.principal = admission.principal


def _confirmed() -> bool:
    """After a speculative route answered: its admission (joined, or made now if the route made no
    durable write), which replaces the answer with its refusal; True when the request must run
    again on the principal admitted, which differs from the one it ran on (the route gave back
    what it took, as it does for any failure)."""
    state = context.current()
    confirmation, state.confirmation = state.confirmation, None
    if confirmation is None:
        return False
    _admitted(confirmation.admission())
    return confirmation.missed


def _on_behalf() -> OnBehalf | None:
    """The organisation and the subaccount this request acts in, if it acts on behalf of one."""
    principal = context.current().principal
    if principal is None or principal.credential_account is None:
        return None
    account = principal.account
    return OnBehalf(principal.credential_account.id, account.id, f"{account.slug or account.name} ({account.id})")


def _copy_to_organisation(made: list[AuditEntry], copied: dict[str, str], response: dict[str, Any]) -> None:
    """A write made on behalf of a subaccount is audited in the subaccount's log, in the transaction of
    the change (its area's), and in the organisation's log: who acted (the organisation's
    credential), for which subaccount. That copy is in the same transaction
    (audit/organisation_copies.py) when the write is a DynamoDB transaction of this request; any
    other (`copied` does not name it) is recorded here once the write succeeded. A failure here is
    logged: the write stands and the subaccount's entry records it."""
    behalf = _on_behalf()
    if behalf is None or int(response.get("statusCode", 500)) >= 300:
        return
    subaccount = behalf.subaccount
    for entry in made:
        if entry.account_id != behalf.subaccount_id or entry.id in copied:
            continue
        copy = organisation_copy(
            entry,
            entry_id=shared.ids().new_id(),
            organisation_id=behalf.organisation_id,
            subaccount=subaccount,
        )
        try:
            audit.audit_store().record(copy)
        except Exception:
            logger.exception("the organisation's copy of an audit entry was not written", extra={"action": copy.action})


def _check_body(event: APIGatewayProxyEvent) -> None:
    """Every keyed route takes JSON, if anything (the spec: "Bodies are JSON"); public routes
    (the one-click unsubscribe's form POST) read their own."""
    route = find_route(event.http_method, event.resource)
    if route is not None and route.access is not Access.PUBLIC:
        body.check_request_body(event.headers.get("content-type"), event.body, bool(event.is_base64_encoded))


def _header_values(event: APIGatewayProxyEvent, header: str) -> list[str]:
    """Every value of a header as sent (Authorization, On-Behalf-Of). API Gateway's REST proxy event
    keeps the last of repeated headers in `headers` and all of them in `multiValueHeaders`, each
    under the name as the client spelled it; an event without the latter (a direct invocation) has
    its single header. Read from the raw maps: Powertools' case-insensitive views fold
    `Authorization` and `authorization` into one entry, hiding that the request sent both."""
    repeated: dict[str, list[str] | None] = event.raw_event.get("multiValueHeaders") or {}
    if not repeated:
        single: dict[str, str | None] = event.raw_event.get("headers") or {}
        return [value for name, value in single.items() if name.lower() == header.lower() and value is not None]
    return [value for name, values in repeated.items() if name.lower() == header.lower() for value in values or []]


def _retry_after(exc: ApiError) -> dict[str, str] | None:
    return {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None


def _proxy_error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "statusCode": status,
        "multiValueHeaders": {"Content-Type": ["application/json"], **{k: [v] for k, v in (headers or {}).items()}},
        "body": error_json(code, message, context.current().request_id),
        "isBase64Encoded": False,
    }


def build_app(*routers: Router) -> APIGatewayRestResolver:
    app = APIGatewayRestResolver(enable_validation=True, json_body_deserializer=body.loads)

    @app.exception_handler(ApiError)
    def _api_error(exc: ApiError) -> Response[str]:
        return error_response(exc.status, exc.code, exc.message, _retry_after(exc))

    @app.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response[str]:
        errors = exc.errors()
        if any(error.get("loc", ("",))[0] == "response" for error in errors):
            # Powertools reports a reply that fails its own model as a RequestValidationError (loc
            # "response"): that is our defect, not the caller's, so 500 and the details in the log.
            logger.error("the reply failed its response model", extra={"errors": errors[:5]})
            return error_response(500, "internal_error", INTERNAL_ERROR)
        if is_json_error(errors):
            return error_response(400, "invalid_json", "The request body is not valid JSON.")
        return error_response(400, "validation_error", describe_validation_errors(errors))

    @app.exception_handler(RequestUnsupportedContentType)
    def _not_json(exc: RequestUnsupportedContentType) -> Response[str]:
        # An empty body of another type on a route that takes JSON (http/body.py refuses non-empty ones).
        return error_response(
            400, "invalid_json", f"Send the request body as JSON with 'Content-Type: {body.JSON_MEDIA_TYPE}'."
        )

    @app.exception_handler(NotFoundError)
    def _no_route(exc: NotFoundError) -> Response[str]:
        return error_response(404, "not_found", "No such route.")

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response[str]:
        logger.exception("unhandled error")
        return error_response(500, "internal_error", INTERNAL_ERROR)

    for router in routers:
        app.include_router(router)
    return app


def _add_headers(response: dict[str, Any], headers: dict[str, str]) -> None:
    if "multiValueHeaders" in response:
        multi = response["multiValueHeaders"] or {}
        for name, value in headers.items():
            multi[name] = [value]
        response["multiValueHeaders"] = multi
    else:
        response["headers"] = {**(response.get("headers") or {}), **headers}


def _respond(
    app: APIGatewayRestResolver, proxy_event: APIGatewayProxyEvent, event: dict[str, Any], lambda_context: LambdaContext
) -> dict[str, Any]:
    """The answer of an authenticated (or speculative) request: its body checked, its route run."""
    try:
        _check_body(proxy_event)
        if proxy_event.path.endswith("\n"):
            # Powertools matches a route's pattern with `$`, which also matches before a final newline:
            # GET /v3/domains/%0A (id "\n", which names nothing) would reach the list route instead.
            raise NotFound("No such resource in this account.")
        organisation_copies.register(wiring_client("dynamodb"))
        with (
            entries_made() as made,
            copying_in_transactions(made, acting=_on_behalf, new_id=shared.ids().new_id) as copied,
        ):
            response: dict[str, Any] = app.resolve(event, lambda_context)
        _copy_to_organisation(made, copied, response)
    except ApiError as exc:
        response = _proxy_error(exc.status, exc.code, exc.message, _retry_after(exc))
    except Exception:
        logger.exception("unhandled error before the route")
        response = _proxy_error(500, "internal_error", INTERNAL_ERROR)
    return response


def lambda_handler(*routers: Router) -> LambdaHandler:
    """The entry point of every API function: resolve, then stamp request id and rate headers; the
    invocation's metrics are published as it ends."""
    app = build_app(*routers)

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
    @tracer.capture_lambda_handler
    @metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
    def handler(event: dict[str, Any], lambda_context: LambdaContext) -> dict[str, Any]:
        request_id = (event.get("requestContext") or {}).get("requestId") or str(uuid.uuid4())
        state = context.begin(request_id)
        try:
            proxy_event = APIGatewayProxyEvent(event)
            _authenticate(proxy_event)
            response = _respond(app, proxy_event, event, lambda_context)
            if _confirmed():
                response = _respond(app, proxy_event, event, lambda_context)
        except ApiError as exc:
            response = _proxy_error(exc.status, exc.code, exc.message, _retry_after(exc))
        except Exception:
            logger.exception("unhandled error before the route")
            response = _proxy_error(500, "internal_error", INTERNAL_ERROR)
        headers = {REQUEST_ID_HEADER: request_id, **(state.rate.headers() if state.rate else {})}
        _add_headers(response, headers)
        return response

    return handler
