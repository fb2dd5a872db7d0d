"""Mailing lists: /v3/lists (list, create), /v3/lists/{id} (get, PATCH, DELETE; {id} is the list's id
or its address), /v3/lists/{id}/members (list, add one), /v3/lists/{id}/members/bulk (upsert up to
1,000), /v3/lists/{id}/members/{address} (get, PATCH, DELETE), /v3/lists/{id}/sends/{send_id} (a
send to the list's address: its progress and counts; DELETE cancels it)."""

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import RACED, raced
from postline.http.params import PageNumber, PerPage
from postline.keys.models import DeleteConfirmation
from postline.lists.domain import ListMember, MailingList
from postline.lists.models import (
    BulkMembersRequest,
    BulkMembersResult,
    ListCreate,
    ListUpdate,
    MemberCreate,
    MemberFilters,
    MemberUpdate,
)
from postline.lists.sends import ListSendResult
from postline.shared.pagination import DEFAULT_PER_PAGE, Page
from postline.wiring import lists

router = Router()
ListRef = Annotated[str, Path(min_length=1, max_length=1_000, description="The list's id, or its address.")]
SendId = Annotated[str, Path(min_length=1, max_length=64, description="list_send_id of the 202.")]
Address = Annotated[str, Path(min_length=1, max_length=1_000, description="The member's address (URL-encoded or not).")]


def _created(model: type) -> "dict[int, OpenAPIResponse]":
    return {201: {"description": "Created.", "content": {"application/json": {"model": model}}}}


DELETE = "The list and its address go at once; its members are removed in the background."


@router.get("/v3/lists", summary="List mailing lists, oldest first", tags=["Lists"])
def list_lists(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[MailingList]:
    return lists.list_service().list_page(principal(), page=page, per_page=per_page)


@router.post("/v3/lists", summary="Create a mailing list (400 if the account has a list at its address)",
             tags=["Lists"], responses=raced(success=_created(MailingList)))  # fmt: skip
def create_list(request: Annotated[ListCreate, Body()]) -> Response[MailingList]:
    created = lists.list_service().create(principal(), request)
    return Response(status_code=201, content_type="application/json", body=created)


@router.get("/v3/lists/<id>", summary="Get a mailing list by id or by address", tags=["Lists"])
def get_list(id: ListRef) -> MailingList:
    return lists.list_service().get(principal(), id)


@router.patch("/v3/lists/<id>", summary="Change a mailing list's name or description", tags=["Lists"])
def update_list(id: ListRef, request: Annotated[ListUpdate, Body()]) -> MailingList:
    return lists.list_service().update(principal(), id, request)


@router.delete("/v3/lists/<id>", summary="Delete a mailing list and its members", description=DELETE, tags=["Lists"])
def delete_list(id: ListRef) -> DeleteConfirmation:
    removed = lists.list_service().delete(principal(), id)
    return DeleteConfirmation(message=f"List {removed.address} deleted; its {removed.member_count} members follow.")


@router.get("/v3/lists/<id>/members", summary="List a mailing list's members, by address", tags=["Lists"])
def list_members(
    id: ListRef,
    subscribed: Annotated[bool | None, Query(description="Only subscribed (true) or unsubscribed (false).")] = None,
    page: PageNumber = 1,
    per_page: PerPage = DEFAULT_PER_PAGE,
) -> Page[ListMember]:
    filters = MemberFilters(subscribed=subscribed)
    return lists.list_service().members_page(principal(), id, filters, page=page, per_page=per_page)


@router.post("/v3/lists/<id>/members", summary="Add a member (400 if the address is a member already)",
             tags=["Lists"], responses=_created(ListMember))  # fmt: skip
def add_member(id: ListRef, request: Annotated[MemberCreate, Body()]) -> Response[ListMember]:
    added = lists.list_service().add_member(principal(), id, request)
    return Response(status_code=201, content_type="application/json", body=added)


@router.post("/v3/lists/<id>/members/bulk", summary="Add or update up to 1,000 members by address", tags=["Lists"],
             responses=RACED)  # fmt: skip
def bulk_upsert_members(id: ListRef, request: Annotated[BulkMembersRequest, Body()]) -> BulkMembersResult:
    return lists.list_service().bulk_upsert(principal(), id, request)


@router.get("/v3/lists/<id>/members/<address>", summary="Get a member", tags=["Lists"])
def get_member(id: ListRef, address: Address) -> ListMember:
    return lists.list_service().get_member(principal(), id, address)


@router.patch("/v3/lists/<id>/members/<address>", summary="Change a member's subscribed, name or vars",
              tags=["Lists"], responses=RACED)  # fmt: skip
def update_member(id: ListRef, address: Address, request: Annotated[MemberUpdate, Body()]) -> ListMember:
    return lists.list_service().update_member(principal(), id, address, request)


@router.delete("/v3/lists/<id>/members/<address>", summary="Remove a member", tags=["Lists"])
def delete_member(id: ListRef, address: Address) -> DeleteConfirmation:
    removed = lists.list_service().delete_member(principal(), id, address)
    return DeleteConfirmation(message=f"{removed.address} removed from the list.")


@router.get("/v3/lists/<id>/sends/<send_id>", summary="Get a send to the list: its progress and counts",
            tags=["Lists"])  # fmt: skip
def get_list_send(id: ListRef, send_id: SendId) -> ListSendResult:
    return lists.list_service().get_send(principal(), id, send_id)


CANCEL = (
    "Pending or scheduled: cancelled before any member is mailed. Sending: no further page goes out; the "
    "members already queued stay sent and are counted (status cancelling until the worker's page in flight "
    "is counted, then cancelled). Done, failed, cancelled or already cancelling: 400 validation_error, as for a "
    "scheduled message that can no longer be cancelled."
)


@router.delete("/v3/lists/<id>/sends/<send_id>", summary="Cancel a send to the list", description=CANCEL,
               tags=["Lists"], responses=RACED)  # fmt: skip
def cancel_list_send(id: ListRef, send_id: SendId) -> ListSendResult:
    return lists.list_service().cancel_send(principal(), id, send_id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
