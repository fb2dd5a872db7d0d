"""The emulator's moto patch (devtools/moto_patches/update_checks.py): UpdateItem and a transaction's
Update answer, refuse and leave the table as moto's own validation does when the checks that depend
only on the expression, its names and the table's keys are made once; and the guard."""

from __future__ import annotations

import random
import uuid
from typing import Any

from botocore.exceptions import ClientError
from moto import mock_aws

from devtools.moto_patches import update_checks, update_expressions
from tests.local.in_process import in_process_client

_UPDATES: list[tuple[str, dict[str, str]]] = [
    ("ADD a :v, b :v SET expires_at = :v", {}),
    ("ADD #c :v, v :v SET #e = :v", {"#c": "count", "#e": "expires_at"}),
    ("ADD #c :v, v :v SET #e = :v", {"#c": "count", "#e": "sk"}),  # the table's sort key: refused
    ("SET a = :v, a = :v", {}),  # the same path twice: refused
    ("SET a = :v SET b = :v", {}),  # two SET clauses: refused
    ("SET m.x = :v, m.y = :v REMOVE z", {}),
    ("SET #p = :v", {"#p": "pk"}),  # the partition key: refused
    ("SET n = if_not_exists(n, :v) + :v", {}),
]


def _run(seed: int) -> list[Any]:
    rng = random.Random(seed)
    answers: list[Any] = []
    with mock_aws():
        db = in_process_client("dynamodb")
        table = f"checks-{uuid.uuid4().hex[:8]}"
        db.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                                    {"AttributeName": "sk", "KeyType": "RANGE"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "sk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")  # fmt: skip
        for index in range(120):
            expression, names = rng.choice(_UPDATES)
            update: dict[str, Any] = {"TableName": table, "Key": {"pk": {"S": f"k{index % 3}"}, "sk": {"S": "s"}},
                                      "UpdateExpression": expression,
                                      "ExpressionAttributeValues": {":v": {"N": str(rng.randint(1, 9))}}}  # fmt: skip
            if names:
                update["ExpressionAttributeNames"] = names
            if "m.x" in expression:
                db.update_item(TableName=table, Key=update["Key"], UpdateExpression="SET m = if_not_exists(m, :m)",
                               ExpressionAttributeValues={":m": {"M": {}}})  # fmt: skip
            try:
                if index % 2:
                    answers.append(db.update_item(**update, ReturnValues="ALL_NEW")["Attributes"])
                else:
                    db.transact_write_items(TransactItems=[{"Update": update}])
                    answers.append("ok")
            except ClientError as error:
                answers.append((error.response["Error"]["Code"], error.response["Error"]["Message"]))
        answers.append(sorted(db.scan(TableName=table)["Items"], key=lambda item: item["pk"]["S"]))
    return answers


def test_updates_answer_as_moto_answers_them() -> None:
    update_checks.uninstall()
    theirs = _run(5)
    with update_expressions.installed(), update_checks.installed():
        ours = _run(5)
        assert update_checks._passed  # the checks were made once and kept
        again = _run(5)
    assert ours == theirs == again
    refusals = [answer for answer in ours if isinstance(answer, tuple)]
    assert len({code for code, _ in refusals}) >= 1 and len({message for _, message in refusals}) >= 3


def test_without_the_parse_cache_nothing_is_skipped_wrongly() -> None:
    update_checks.uninstall()
    update_expressions.uninstall()
    theirs = _run(6)
    with update_checks.installed():
        ours = _run(6)
    assert ours == theirs


def test_guard() -> None:
    update_checks.uninstall()
    update_checks.check_internals()
