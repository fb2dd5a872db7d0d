"""Templates: create, list, get, update (version + 1), delete, and a render preview. Every write is
audited."""

from __future__ import annotations

from datetime import datetime

from postline.audit.domain import AuditEntry
from postline.audit.service import new_audit_entry
from postline.keys.identity import Principal
from postline.keys.models import DeleteConfirmation
from postline.shared.errors import NotFound
from postline.shared.pagination import Page, make_page
from postline.shared.ports import Clock, IdFactory
from postline.templates.domain import Template, check_vars
from postline.templates.models import RenderedTemplate, TemplateCreate, TemplatePreview, TemplateUpdate
from postline.templates.ports import TemplateStore
from postline.templates.rendering import RenderBudget, check_limits, referenced_variables, render_subject, render_text


class TemplateService:
    def __init__(self, *, templates: TemplateStore, ids: IdFactory, clock: Clock) -> None:
        self._templates = templates
        self._ids = ids
        self._clock = clock

    def create(self, principal: Principal, request: TemplateCreate) -> Template:
        now = self._clock.now()
        fields = request.model_dump(exclude_none=True)
        template = Template(id=self._ids.new_id("tpl_"), **fields, version=1, created_at=now, updated_at=now)
        _check_limits(template)
        audit = self._audit(principal, template.id, "template.created", now)
        self._templates.put_template(principal.account.id, template, expected_version=None, audit=audit)
        return template

    def list_page(self, principal: Principal, *, page: int, per_page: int) -> Page[Template]:
        items, total = self._templates.list_templates(principal.account.id, page=page, per_page=per_page)
        return make_page(items, page=page, per_page=per_page, total_count=total)

    def get(self, principal: Principal, template_id: str) -> Template:
        template = self._templates.get_template(principal.account.id, template_id)
        if template is None:
            raise NotFound(f"No template {template_id} in this account.")
        return template

    def update(self, principal: Principal, template_id: str, request: TemplateUpdate) -> Template:
        current = self.get(principal, template_id)
        now = self._clock.now()
        changes = request.model_dump(exclude_unset=True)
        if "name" in changes and changes["name"] is None:
            changes.pop("name")  # a template always has a name
        updated = current.model_copy(update={**changes, "version": current.version + 1, "updated_at": now})
        updated = Template.model_validate(updated.model_dump())
        _check_limits(updated)
        audit = self._audit(principal, template_id, "template.updated", now, f"version {updated.version}")
        self._templates.put_template(principal.account.id, updated, expected_version=current.version, audit=audit)
        return updated

    def delete(self, principal: Principal, template_id: str) -> DeleteConfirmation:
        now = self._clock.now()
        audit = self._audit(principal, template_id, "template.deleted", now)
        self._templates.delete_template(principal.account.id, template_id, audit)
        return DeleteConfirmation(message=f"Template {template_id} was deleted.")

    def render(self, principal: Principal, request: TemplatePreview) -> RenderedTemplate:
        """The parts a send with `request.vars` would carry (vars_schema checked, the same limits),
        nothing stored or sent. The subject is rendered only when the template has one: a send
        without its own subject would be refused, which the preview does not need to repeat."""
        if request.template_id is not None:
            template = self.get(principal, request.template_id)
            saved_id, version = template.id, template.version
        else:
            template = Template(id="preview", name="preview", **request.model_dump(exclude={"template_id", "vars"}))
            saved_id, version = None, None
        check_vars(template, request.vars)
        budget = RenderBudget.start()
        used = referenced_variables(template.subject, template.html, template.text_body)
        return RenderedTemplate(
            template_id=saved_id,
            version=version,
            subject=render_subject(template.subject, request.vars, budget=budget) if template.subject else None,
            html=render_text(template.html, request.vars, html=True, budget=budget),
            text_body=render_text(template.text_body, request.vars, budget=budget),
            variables=used,
            missing_variables=[name for name in used if name not in request.vars],
        )

    def _audit(
        self, principal: Principal, target: str, action: str, now: datetime, details: str | None = None
    ) -> AuditEntry:
        return new_audit_entry(self._ids, principal.actor(), principal.account.id, action, target, details, now=now)


def _check_limits(template: Template) -> None:
    """400 validation_error for a template that breaks a rendering limit whatever its vars."""
    check_limits(
        {
            "subject": (template.subject, False),
            "html": (template.html, True),
            "text_body": (template.text_body, False),
        }
    )
