"""The emulator's moto patch (devtools/moto_patches/update_expressions.py): UpdateItem and a
transaction's Update answer as moto answers them with each expression parsed once per text, and the
shared tree is never changed; and the guard."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.dynamodb.parsing.expressions import UpdateExpressionParser

from devtools.moto_patches import update_expressions
from tests.local.in_process import in_process_client

_EXPRESSIONS = [
    "ADD a :v0, b :v1 SET expires_at = :e",
    "SET #s = :v0, c = if_not_exists(c, :v1) REMOVE d",
    "ADD a :v0 SET m.x = :v1",
    "SET l = list_append(if_not_exists(l, :empty), :v0)",
]


def _values(expression: str, rng: random.Random) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if ":v0" in expression:
        values[":v0"] = {"L": [{"N": str(rng.randint(0, 9))}]} if "list_append" in expression else {"N": "2"}
    if ":v1" in expression:
        values[":v1"] = {"N": str(rng.randint(1, 9))}
    if ":e" in expression:
        values[":e"] = {"N": str(rng.randint(1, 99))}
    if ":empty" in expression:
        values[":empty"] = {"L": []}
    return values


def _run(seed: int) -> list[Any]:
    rng = random.Random(seed)
    with mock_aws():
        db = in_process_client("dynamodb")
        table = f"exprs-{uuid.uuid4().hex[:8]}"
        db.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")  # fmt: skip
        answers: list[Any] = []
        for index in range(60):
            expression = rng.choice(_EXPRESSIONS)
            update: dict[str, Any] = {"TableName": table, "Key": {"pk": {"S": f"k{index % 4}"}},
                                      "UpdateExpression": expression,
                                      "ExpressionAttributeValues": _values(expression, rng)}  # fmt: skip
            if "#s" in expression:
                update["ExpressionAttributeNames"] = {"#s": "status"}
            if "m.x" in expression:
                db.update_item(TableName=table, Key=update["Key"], UpdateExpression="SET m = if_not_exists(m, :m)",
                               ExpressionAttributeValues={":m": {"M": {}}})  # fmt: skip
            try:
                if index % 3:
                    answers.append(db.update_item(**update, ReturnValues="ALL_NEW")["Attributes"])
                else:
                    db.transact_write_items(TransactItems=[{"Update": update}])
            except ClientError as error:
                answers.append(error.response["Error"]["Code"])
        answers.append(sorted(db.scan(TableName=table)["Items"], key=lambda item: item["pk"]["S"]))
    return answers


def _shape(node: Any) -> Any:
    children = getattr(node, "children", None)
    return (type(node).__name__, [_shape(child) for child in children] if children else repr(node))


def test_updates_answer_as_moto_answers_them() -> None:
    update_expressions.uninstall()
    theirs = _run(7)
    with update_expressions.installed():
        ours = _run(7)
        tree = UpdateExpressionParser.make(_EXPRESSIONS[0])
        assert UpdateExpressionParser.make(_EXPRESSIONS[0]) is tree  # parsed once
        before = _shape(tree)
        _run(8)
        assert _shape(tree) == before  # shared, never changed
        with pytest.raises(Exception, match="Invalid"):
            UpdateExpressionParser.make("ADD")
    assert ours == theirs


def test_guard() -> None:
    update_expressions.uninstall()
    update_expressions.check_internals()
