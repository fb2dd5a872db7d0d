"""Query parameters shared by page-numbered lists."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from postline.shared.pagination import DEFAULT_PER_PAGE, MAX_PER_PAGE

PageNumber = Annotated[int, Query(ge=1, le=1_000_000, description="1-based page number; default 1.")]
PerPage = Annotated[int, Query(ge=1, le=MAX_PER_PAGE, description=f"1-{MAX_PER_PAGE}; default {DEFAULT_PER_PAGE}.")]
