"""The smtp area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Counters
from postline.wiring import auth, sending, usage
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.smtp.service import SubmissionService
    from postline.smtp.store import DynamoSubmissionCounters


@built_once()
def submission_counters() -> DynamoSubmissionCounters:
    from postline.smtp.store import DynamoSubmissionCounters

    return DynamoSubmissionCounters(client("dynamodb"), settings(Counters).table, usage.counter_store())


def submission_service(*, auth_failures_per_minute: int | None = None) -> SubmissionService:
    """The SMTP submission task's use cases: POST /v3/messages' auth rule and send service."""
    from postline.auth.service import RouteRule
    from postline.routes import find_route
    from postline.smtp.domain import AUTH_FAILURES_PER_MINUTE
    from postline.smtp.service import SubmissionService

    send = find_route("POST", "/v3/messages")
    assert send is not None
    return SubmissionService(
        authenticator=auth.authenticator(),
        sender=sending.send_service(),
        rule=RouteRule(send.access, send.live_only),
        counters=submission_counters(),
        clock=clock(),
        auth_failures_per_minute=auth_failures_per_minute or AUTH_FAILURES_PER_MINUTE,
    )
