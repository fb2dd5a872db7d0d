"""In-memory fakes of the templates area's port (`postline/templates/ports.py`): templates as sending reads
them."""

from __future__ import annotations

from postline.templates.domain import Template


class NoTemplates:
    def get_template(self, account_id: str, template_id: str) -> Template | None:
        return None
