"""In-memory fakes of the templates area's port (`postline/templates/ports.py`): templates as sending reads
them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.templates.domain import Template

if TYPE_CHECKING:
    from postline.templates.ports import Templates


class NoTemplates:
    def get_template(self, account_id: str, template_id: str) -> Template | None:
        return None


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _templates: Templates = NoTemplates()
