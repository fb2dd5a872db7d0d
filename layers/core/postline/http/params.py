"""Query parameters shared by lists: page-numbered ones (PageNumber, PerPage) and cursor-paginated
ones over a time window (Cursor, and since/until/limit, whose text and bounds each route gives)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from postline.shared.pagination import DEFAULT_PER_PAGE, MAX_PER_PAGE

PageNumber = Annotated[int, Query(ge=1, le=1_000_000, description="1-based page number; default 1.")]
PerPage = Annotated[int, Query(ge=1, le=MAX_PER_PAGE, description=f"1-{MAX_PER_PAGE}; default {DEFAULT_PER_PAGE}.")]

Cursor = Annotated[str | None, Query(max_length=2048, description="next_cursor of the previous page.")]


def since(what: str) -> Query:
    """?since= for `since: Annotated[datetime | None, since("Events")] = None`: `what` at or after."""
    return Query(description=f"{what} at or after (ISO 8601).")


def until(what: str) -> Query:
    """?until= for `until: Annotated[datetime | None, until("Events")] = None`: `what` at or before."""
    return Query(description=f"{what} at or before (ISO 8601).")


def limit(maximum: int, default: int) -> Query:
    """?limit= for `limit: Annotated[int, limit(MAX_LIMIT, DEFAULT_LIMIT)] = DEFAULT_LIMIT`."""
    return Query(ge=1, le=maximum, description=f"1-{maximum}; default {default}.")
