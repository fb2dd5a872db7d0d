"""Suppression lists: /v3/suppressions (list, add one), /v3/suppressions/{id} (get, DELETE),
/v3/suppressions/{type}/{email} (DELETE), /v3/suppressions/bulk (POST: add, DELETE: remove),
/v3/suppressions/import (POST), /v3/suppressions/imports/{id} (GET), /v3/suppressions/export (POST) and
/v3/suppressions/exports/{id} (GET)."""

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query

from postline import wiring
from postline.exports.models import ExportJobView
from postline.http import params
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import conflict_response
from postline.http.params import PageNumber, PerPage
from postline.keys.models import DeleteConfirmation
from postline.shared.pagination import DEFAULT_PER_PAGE, Page
from postline.suppressions.domain import Suppression, SuppressionType
from postline.suppressions.models import (
    BulkSuppressionDelete,
    BulkSuppressionDeleteResult,
    BulkSuppressionRequest,
    BulkSuppressionResult,
    SuppressionCreate,
    SuppressionExportAccepted,
    SuppressionExportRequest,
    SuppressionFilters,
    SuppressionImportAccepted,
    SuppressionImportRequest,
    SuppressionImportView,
    SuppressionRemoval,
)
from postline.wiring import suppressions

router = Router()
SuppressionId = Annotated[str, Path(min_length=1, max_length=64, description="The entry's id (a UUID).")]
Removal = Annotated[SuppressionRemoval | None, Body(description="Needed only to remove an unsubscribes entry.")]
BULK_LIMITS = (
    "Bulk add, bulk delete and import share 10 calls a minute per account, and bulk add and delete "
    "10,000 entries a minute: past either, 429 rate_limit_exceeded with Retry-After."
)

IMPORT = (
    "The CSV travels in the JSON body (`csv`, up to 5,000,000 characters): a header row naming `email` "
    "(required), `reason` and `created_at`, then one row per address. A worker adds the rows in checkpointed "
    "chunks; poll the import for its counts and its first 500 row errors (row 1 is the header). Counts in the "
    "bulk routes' window of 10 calls a minute."
)


@router.get(
    "/v3/suppressions",
    summary="List suppression entries: newest first, or by address with an email prefix",
    tags=["Suppressions"],
)
def list_suppressions(
    type: Annotated[SuppressionType | None, Query(description="One list.")] = None,
    email: Annotated[str | None, Query(min_length=1, max_length=320, description="Address prefix (any case).")] = None,
    since: Annotated[datetime | None, params.since("Entries created")] = None,
    until: Annotated[datetime | None, params.until("Entries created")] = None,
    page: PageNumber = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
) -> Page[Suppression]:
    filters = SuppressionFilters(type=type, email_prefix=email.lower() if email else None, since=since, until=until)
    return suppressions.suppression_service().list_page(principal(), filters, page=page, per_page=per_page)


@router.post(
    "/v3/suppressions",
    summary="Add an address to a list (idempotent: an entry already there is returned, 200)",
    tags=["Suppressions"],
    responses={
        200: {
            "description": "Already on the list: the entry as it is.",
            "content": {"application/json": {"model": Suppression}},
        },
        201: {"description": "Added.", "content": {"application/json": {"model": Suppression}}},
        409: conflict_response("the entry was removed while this request added it"),
    },
)
def create_suppression(request: Annotated[SuppressionCreate, Body()]) -> Response[Suppression]:
    entry, created = suppressions.suppression_service().add(principal(), request)
    return Response(status_code=201 if created else 200, content_type="application/json", body=entry)


@router.post("/v3/suppressions/bulk", summary="Add up to 10,000 addresses to a list", description=BULK_LIMITS,
             tags=["Suppressions"])  # fmt: skip
def bulk_add_suppressions(request: Annotated[BulkSuppressionRequest, Body()]) -> BulkSuppressionResult:
    return suppressions.suppression_service().bulk_add(principal(), request)


@router.delete("/v3/suppressions/bulk", summary="Remove up to 10,000 addresses from a list",
               description=BULK_LIMITS, tags=["Suppressions"])  # fmt: skip
def bulk_delete_suppressions(request: Annotated[BulkSuppressionDelete, Body()]) -> BulkSuppressionDeleteResult:
    return suppressions.suppression_service().bulk_remove(principal(), request)


@router.post(
    "/v3/suppressions/import",
    summary="Import a CSV of addresses into a list (202; poll GET /v3/suppressions/imports/{id})",
    description=IMPORT,
    tags=["Suppressions"],
    responses={202: {"description": "Queued.", "content": {"application/json": {"model": SuppressionImportAccepted}}}},
)
def import_suppressions(request: Annotated[SuppressionImportRequest, Body()]) -> Response[SuppressionImportAccepted]:
    accepted = suppressions.suppression_import_service().start(principal(), request)
    return Response(status_code=202, content_type="application/json", body=accepted)


@router.get("/v3/suppressions/imports/<id>", summary="Get a suppression import", tags=["Suppressions"])
def get_suppression_import(id: Annotated[str, Path(min_length=1, max_length=64)]) -> SuppressionImportView:
    return suppressions.suppression_import_service().get(principal(), id)


@router.post(
    "/v3/suppressions/export",
    summary="Export one list, or all, as CSV (202; poll GET /v3/suppressions/exports/{id})",
    tags=["Suppressions"],
    responses={202: {"description": "Queued.", "content": {"application/json": {"model": SuppressionExportAccepted}}}},
)
def export_suppressions(request: Annotated[SuppressionExportRequest, Body()]) -> Response[SuppressionExportAccepted]:
    accepted = suppressions.suppression_export_service().start(principal(), request)
    return Response(status_code=202, content_type="application/json", body=accepted)


@router.get("/v3/suppressions/exports/<id>", summary="Get a suppression export and its download URL",
            tags=["Suppressions"])  # fmt: skip
def get_suppression_export(id: Annotated[str, Path(min_length=1, max_length=64)]) -> ExportJobView:
    return suppressions.suppression_export_service().get(principal(), id)


@router.get("/v3/suppressions/<id>", summary="Get a suppression entry", tags=["Suppressions"])
def get_suppression(id: SuppressionId) -> Suppression:
    return suppressions.suppression_service().get(principal(), id)


@router.delete("/v3/suppressions/<id>", summary="Remove a suppression entry", tags=["Suppressions"])
def delete_suppression(id: SuppressionId, request: Removal = None) -> DeleteConfirmation:
    entry = suppressions.suppression_service().remove(principal(), id, request or SuppressionRemoval())
    return DeleteConfirmation(message=f"{entry.email} removed from the {entry.type.value} list.")


@router.delete("/v3/suppressions/<type>/<email>", summary="Remove an address from a list", tags=["Suppressions"])
def delete_suppression_by_address(
    type: Annotated[SuppressionType, Path(description="The list.")],
    email: Annotated[str, Path(min_length=1, max_length=1_000, description="The address (URL-encoded or not).")],
    request: Removal = None,
) -> DeleteConfirmation:
    entry = suppressions.suppression_service().remove_address(principal(), type, email, request or SuppressionRemoval())
    return DeleteConfirmation(message=f"{entry.email} removed from the {entry.type.value} list.")


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
