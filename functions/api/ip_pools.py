"""IP pools and IPs: /v3/ip-pools (list, create), /v3/ip-pools/{id} (get, PATCH, DELETE),
/v3/ip-pools/{id}/ips (assign or move an address into the pool) and /v3/ips (list)."""

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import RACED
from postline.http.params import PageNumber, PerPage
from postline.ip_pools.models import Ip, IpAssign, IpPool, IpPoolCreate, IpPoolUpdate
from postline.keys.models import DeleteConfirmation
from postline.shared.pagination import DEFAULT_PER_PAGE, Page
from postline.wiring import ip_pools

router = Router()
PoolId = Annotated[str, Path(min_length=1, max_length=64, description="The pool's id (a UUID).")]


@router.get("/v3/ip-pools", summary="List IP pools (the platform's, then the account's)", tags=["IP pools"])
def list_ip_pools(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[IpPool]:
    return ip_pools.ip_pool_service().list_page(principal(), page=page, per_page=per_page)


@router.post(
    "/v3/ip-pools",
    summary="Create a dedicated or warming IP pool",
    tags=["IP pools"],
    responses={201: {"description": "Created.", "content": {"application/json": {"model": IpPool}}}},
)
def create_ip_pool(request: Annotated[IpPoolCreate, Body()]) -> Response[IpPool]:
    created = ip_pools.ip_pool_service().create(principal(), request)
    return Response(status_code=201, content_type="application/json", body=created)


@router.get("/v3/ip-pools/<id>", summary="Get an IP pool", tags=["IP pools"])
def get_ip_pool(id: PoolId) -> IpPool:
    return ip_pools.ip_pool_service().get(principal(), id)


@router.patch("/v3/ip-pools/<id>", summary="Change an IP pool, or make it the default", tags=["IP pools"],
              responses=RACED)  # fmt: skip
def update_ip_pool(id: PoolId, request: Annotated[IpPoolUpdate, Body()]) -> IpPool:
    return ip_pools.ip_pool_service().update(principal(), id, request)


@router.delete("/v3/ip-pools/<id>", summary="Delete an empty IP pool", tags=["IP pools"], responses=RACED)
def delete_ip_pool(id: PoolId) -> DeleteConfirmation:
    return ip_pools.ip_pool_service().delete(principal(), id)


@router.post("/v3/ip-pools/<id>/ips", summary="Move one of the account's IPs into this pool", tags=["IP pools"],
             responses=RACED)  # fmt: skip
def assign_ip(id: PoolId, request: Annotated[IpAssign, Body()]) -> Ip:
    return ip_pools.ip_pool_service().assign_ip(principal(), id, request)


@router.get("/v3/ips", summary="List the account's IPs", tags=["IP pools"])
def list_ips(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[Ip]:
    return ip_pools.ip_pool_service().list_ips(principal(), page=page, per_page=per_page)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
