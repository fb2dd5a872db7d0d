"""Templates in the resources table (ACCT#<account> / TPL#<id>, see shared/resources_table.py)."""

from __future__ import annotations

import json
from typing import Any

from postline.audit.domain import AuditEntry
from postline.audit.store import audit_put
from postline.shared.dynamo import from_attrs, key, query_page
from postline.shared.resources_table import account_pk, put_op, transact
from postline.templates.domain import Template


def template_sk(template_id: str) -> str:
    return f"TPL#{template_id}"


class DynamoTemplateStore:
    def __init__(self, client: Any, table: str) -> None:
        self._db = client
        self._table = table

    def get_template(self, account_id: str, template_id: str) -> Template | None:
        response = self._db.get_item(
            TableName=self._table, Key=key(account_pk(account_id), template_sk(template_id)), ConsistentRead=True
        )
        item = response.get("Item")
        return _template(item) if item else None

    def list_templates(self, account_id: str, *, page: int, per_page: int) -> tuple[list[Template], int]:
        condition = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": account_pk(account_id)}, ":prefix": {"S": "TPL#"}},
        }
        found, total = query_page(self._db, self._table, condition, page=page, per_page=per_page, forward=True)
        return [_template(attrs) for attrs in found], total

    def put_template(
        self, account_id: str, template: Template, *, expected_version: int | None, audit: AuditEntry
    ) -> None:
        """Creates (expected_version None) or replaces the template at expected_version."""
        # The schema is a JSON document of the customer's: stored as text, since DynamoDB numbers
        # stop at 38 digits and 1e126 and nesting at 32 levels, while JSON Schema has no such bounds.
        data = {**template.model_dump(mode="json", exclude={"vars_schema"}), "account_id": account_id}
        if template.vars_schema is not None:
            data["vars_schema_json"] = json.dumps(template.vars_schema)
        pk, sk = account_pk(account_id), template_sk(template.id)
        if expected_version is None:
            # fails only if template.id is taken: a fresh id (shared/ids.py) collided, which is internal
            # (500, a retry gets a new id), so the ClientError goes up as it is
            op = put_op(self._table, pk, sk, data, "attribute_not_exists(pk)")
            self._db.transact_write_items(TransactItems=[op, audit_put(self._table, audit)])
        else:
            condition = "attribute_exists(pk) AND version = :version"
            op = put_op(self._table, pk, sk, data, condition, {":version": {"N": str(expected_version)}})
            missing = f"template {template.id} not found"
            transact(self._db, [op, audit_put(self._table, audit)], missing=missing,
                     conflict=f"template {template.id} changed concurrently; retry")  # fmt: skip

    def delete_template(self, account_id: str, template_id: str, audit: AuditEntry) -> None:
        op = {
            "Delete": {
                "TableName": self._table,
                "Key": key(account_pk(account_id), template_sk(template_id)),
                "ConditionExpression": "attribute_exists(pk)",
            }
        }
        transact(self._db, [op, audit_put(self._table, audit)], missing=f"template {template_id} not found")


def _template(attrs: dict[str, Any]) -> Template:
    data = from_attrs(attrs)
    schema = data.pop("vars_schema_json", None)
    return Template.model_validate({**data, "vars_schema": json.loads(schema) if schema else None})
