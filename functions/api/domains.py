"""Sending domains: /v3/domains (list, create), /v3/domains/{id} (get, PATCH, DELETE),
/v3/domains/{id}/verify (check the DNS records now), /v3/domains/{id}/dkim/rotate."""

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from postline import wiring
from postline.domains.models import Domain, DomainCreate, DomainList, DomainUpdate
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import raced
from postline.keys.models import DeleteConfirmation
from postline.wiring import domains

router = Router()
DomainId = Annotated[str, Path(min_length=1, max_length=64, description="The domain's id (dom_...).")]
RACED = raced("the domain kept changing meanwhile (a scheduled DNS check or another edit)")


@router.get("/v3/domains", summary="List sending domains (live keys only)", tags=["Domains"])
def list_domains() -> DomainList:
    return domains.domain_service().list_all(principal())


@router.post(
    "/v3/domains",
    summary="Add a sending domain",
    tags=["Domains"],
    responses={
        201: {
            "description": "Created, pending: publish its dns_records, then verify.",
            "content": {"application/json": {"model": Domain}},
        }
    },
)
def create_domain(request: Annotated[DomainCreate, Body()]) -> Response[Domain]:
    created = domains.domain_service().create(principal(), request)
    return Response(status_code=201, content_type="application/json", body=created)


@router.get("/v3/domains/<id>", summary="Get a sending domain and its DNS records", tags=["Domains"])
def get_domain(id: DomainId) -> Domain:
    return domains.domain_service().get(principal(), id)


@router.patch("/v3/domains/<id>", summary="Update a sending domain", tags=["Domains"], responses=RACED)
def update_domain(id: DomainId, request: Annotated[DomainUpdate, Body()]) -> Domain:
    return domains.domain_service().update(principal(), id, request)


@router.delete("/v3/domains/<id>", summary="Delete a sending domain", tags=["Domains"])
def delete_domain(id: DomainId) -> DeleteConfirmation:
    return domains.domain_service().delete(principal(), id)


@router.post("/v3/domains/<id>/verify", summary="Check a sending domain's DNS records now", tags=["Domains"],
             responses=RACED)  # fmt: skip
def verify_domain(id: DomainId) -> Domain:
    return domains.domain_service().verify(principal(), id)


@router.post(
    "/v3/domains/<id>/dkim/rotate",
    summary="Start a DKIM key rotation: a new key under a new selector, signing once it is published",
    tags=["Domains"],
    responses=RACED,
)
def rotate_domain_dkim(id: DomainId) -> Domain:
    return domains.domain_service().rotate_dkim(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
