"""What sending needs from templates.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from postline.audit.domain import AuditEntry
    from postline.templates.domain import Template


class Templates(Protocol):
    def get_template(self, account_id: str, template_id: str) -> Template | None: ...


class TemplateStore(Protocol):
    def get_template(self, account_id: str, template_id: str) -> Template | None: ...

    def list_templates(self, account_id: str, *, page: int, per_page: int) -> tuple[list[Template], int]: ...

    def put_template(
        self, account_id: str, template: Template, *, expected_version: int | None, audit: AuditEntry
    ) -> None: ...

    def delete_template(self, account_id: str, template_id: str, audit: AuditEntry) -> None: ...
