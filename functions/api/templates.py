"""Templates: /v3/templates (list, create), /v3/templates/{id} (get, PATCH, DELETE), /v3/templates/render."""

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import RACED
from postline.http.params import PageNumber, PerPage
from postline.keys.models import DeleteConfirmation
from postline.shared.pagination import DEFAULT_PER_PAGE, Page
from postline.templates.domain import Template
from postline.templates.models import RenderedTemplate, TemplateCreate, TemplatePreview, TemplateUpdate
from postline.wiring import templates

router = Router()
TemplateId = Annotated[str, Path(min_length=1, max_length=64, description="The template's id (tpl_...).")]


@router.get("/v3/templates", summary="List templates", tags=["Templates"])
def list_templates(page: PageNumber = 1, per_page: PerPage = DEFAULT_PER_PAGE) -> Page[Template]:
    return templates.template_service().list_page(principal(), page=page, per_page=per_page)


@router.post(
    "/v3/templates",
    summary="Create a template",
    tags=["Templates"],
    responses={201: {"description": "Created.", "content": {"application/json": {"model": Template}}}},
)
def create_template(request: Annotated[TemplateCreate, Body()]) -> Response[Template]:
    created = templates.template_service().create(principal(), request)
    return Response(status_code=201, content_type="application/json", body=created)


@router.post(
    "/v3/templates/render",
    summary="Preview a template rendered with vars",
    description="A saved template (`template_id`) or unsaved parts rendered as a send with these `vars` would "
    "carry them: vars_schema checked and rendering limits applied as in a send (400 validation_error), "
    "`missing_variables` named (they render empty). Nothing is stored or sent; a template's live preview.",
    tags=["Templates"],
)
def render_template(request: Annotated[TemplatePreview, Body()]) -> RenderedTemplate:
    return templates.template_service().render(principal(), request)


@router.get("/v3/templates/<id>", summary="Get a template", tags=["Templates"])
def get_template(id: TemplateId) -> Template:
    return templates.template_service().get(principal(), id)


@router.patch("/v3/templates/<id>", summary="Update a template (version + 1)", tags=["Templates"], responses=RACED)
def update_template(id: TemplateId, request: Annotated[TemplateUpdate, Body()]) -> Template:
    return templates.template_service().update(principal(), id, request)


@router.delete("/v3/templates/<id>", summary="Delete a template", tags=["Templates"])
def delete_template(id: TemplateId) -> DeleteConfirmation:
    return templates.template_service().delete(principal(), id)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
