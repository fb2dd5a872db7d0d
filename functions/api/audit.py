"""GET /v3/audit: the account's audit log, newest first, page-numbered."""

from aws_lambda_powertools.event_handler.api_gateway import Router

from postline import wiring
from postline.audit.domain import AuditEntry
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.params import PageNumber, PerPage
from postline.shared.pagination import DEFAULT_PER_PAGE, Page
from postline.wiring import audit

router = Router()


@router.get("/v3/audit", summary="Audit log", tags=["Audit"])
def list_audit(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[AuditEntry]:
    return audit.audit_service().list_page(principal().account.id, page=page, per_page=per_page)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
