"""The emulator's moto patch (devtools/moto_patches/condition_expressions.py): conditional writes,
transactions and filtered reads answer as moto answers them with each condition parsed once per
expression, names and values; a shared tree is never changed; and the guard."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.dynamodb.comparisons import ConditionExpressionParser

from devtools.moto_patches import condition_expressions
from tests.local.in_process import in_process_client

_CONDITIONS: list[tuple[str, dict[str, str], list[str]]] = [
    ("attribute_not_exists(pk)", {}, []),
    ("attempt_count = :before", {}, [":before"]),
    ("attribute_exists(pk) AND #n > :zero", {"#n": "n"}, [":zero"]),
    ("#s IN (:a, :b) OR begins_with(#t, :p)", {"#s": "status", "#t": "tag"}, [":a", ":b", ":p"]),
    ("size(l) < :three AND NOT contains(l, :x)", {}, [":three", ":x"]),
    ("m.inner = :m OR n BETWEEN :zero AND :three", {}, [":m", ":zero", ":three"]),
]


def _value(name: str, rng: random.Random) -> dict[str, Any]:
    if name in (":a", ":b", ":p"):
        return {"S": rng.choice(["on", "off", "t"])}
    if name == ":m":
        return {"M": {"k": {"N": str(rng.randint(0, 2))}}} if rng.random() < 0.5 else {"S": "v"}
    if name == ":x":
        return {"L": [{"N": "1"}]} if rng.random() < 0.3 else {"N": str(rng.randint(0, 3))}
    return {"N": str(rng.randint(0, 3))}


def _run(seed: int) -> list[Any]:
    rng = random.Random(seed)
    answers: list[Any] = []
    with mock_aws():
        db = in_process_client("dynamodb")
        table = f"conds-{uuid.uuid4().hex[:8]}"
        db.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")  # fmt: skip
        for index in range(150):
            expression, names, used = rng.choice(_CONDITIONS)
            request: dict[str, Any] = {"TableName": table, "ConditionExpression": expression}
            if names:
                request["ExpressionAttributeNames"] = names
            if used:
                request["ExpressionAttributeValues"] = {name: _value(name, rng) for name in used}
            item = {
                "pk": {"S": f"k{rng.randint(0, 5)}"},
                "attempt_count": {"N": str(rng.randint(0, 3))},
                "n": {"N": str(rng.randint(0, 3))},
                "status": {"S": rng.choice(["on", "off"])},
                "tag": {"S": rng.choice(["tx", "news"])},
                "l": {"L": [{"N": str(rng.randint(0, 2))} for _ in range(rng.randint(0, 4))]},
                "m": {"M": {"inner": {"S": "v"}}},
            }
            try:
                kind = index % 4
                if kind == 0:
                    db.put_item(**request, Item=item)
                elif kind == 1:  # the update's own values change with each call, as a counter's
                    update = {**request, "Key": {"pk": item["pk"]}, "UpdateExpression": "SET hits = :one"}
                    update["ExpressionAttributeValues"] = {**request.get("ExpressionAttributeValues", {}),
                                                           ":one": {"N": str(rng.randint(1, 99))}}  # fmt: skip
                    db.update_item(**update)
                elif kind == 2:
                    del request["TableName"]
                    db.transact_write_items(TransactItems=[{"Put": {"TableName": table, "Item": item, **request}}])
                else:
                    scan = {"TableName": table, "FilterExpression": expression}
                    scan.update({k: v for k, v in request.items() if k.startswith("Expression")})
                    found = db.scan(**scan)["Items"]
                    answers.append(sorted(found, key=lambda i: i["pk"]["S"]))
                    continue
                answers.append("ok")
            except ClientError as error:
                answers.append(error.response["Error"]["Code"])
            except ValueError as error:  # moto's own: size() of an item that is not there
                answers.append(f"ValueError: {error}")
        for _ in range(2):  # a value the expression uses but the request lacks: refused each time
            try:
                db.put_item(TableName=table, Item={"pk": {"S": "z"}}, ConditionExpression="n = :missing")
            except (ClientError, KeyError) as error:
                answers.append(error.response["Error"]["Code"] if isinstance(error, ClientError) else repr(error))
        answers.append(sorted(db.scan(TableName=table)["Items"], key=lambda i: i["pk"]["S"]))
    return answers


def _shape(node: Any) -> Any:
    return repr(node), sorted(vars(node)) if hasattr(node, "__dict__") else None


def test_conditions_answer_as_moto_answers_them() -> None:
    condition_expressions.uninstall()
    theirs = _run(11)
    with condition_expressions.installed():
        ours = _run(11)
        names = {"#n": "n"}
        values = {":zero": {"N": "0"}}
        first = ConditionExpressionParser(_CONDITIONS[2][0], names, values)
        tree = first.parse()
        again = ConditionExpressionParser(_CONDITIONS[2][0], dict(names), {":zero": {"N": "0"}})
        assert again.parse() is tree  # parsed once
        assert (
            (again.expr_attr_names_found, again.expr_attr_values_found)
            == (
                first.expr_attr_names_found,
                first.expr_attr_values_found,
            )
            == (["pk", "#n"], [":zero"])
        )
        counters = ConditionExpressionParser(_CONDITIONS[2][0], names, {":zero": {"N": "0"}, ":v0": {"N": "5"}})
        assert counters.parse() is tree  # values the text does not name are not in the key
        assert counters.expr_attr_values_found == [":zero"]
        with pytest.raises(KeyError):  # a value the text names and the request lacks: refused each time
            ConditionExpressionParser(_CONDITIONS[2][0], names, {":zer": {"N": "0"}}).parse()
        other = ConditionExpressionParser(_CONDITIONS[2][0], names, {":zero": {"N": "1"}}).parse()
        assert other is not tree and repr(other) != repr(tree)
        before = _shape(tree)
        values[":zero"]["N"] = "7"  # the caller's request changed afterwards
        assert repr(tree) == before[0]
        _run(12)
        assert _shape(tree) == before  # shared, never changed
        for _ in range(2):  # refused each time, nothing kept
            with pytest.raises(ValueError, match="Bad comparison"):
                ConditionExpressionParser("n = = :x", {}, {":x": {"N": "1"}}).parse()
    assert ours == theirs
    assert "ConditionalCheckFailedException" in ours and "ok" in ours


def test_guard() -> None:
    condition_expressions.uninstall()
    condition_expressions.check_internals()
