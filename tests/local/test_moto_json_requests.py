"""The emulator's moto patch (devtools/moto_patches/json_requests.py): a JSON-protocol request parses
exactly as moto's own walk parses it, for random requests of every operation of the services the
project uses; and the guard."""

from __future__ import annotations

import base64
import json
import random
import threading
from typing import Any

import pytest
from moto.core.parse import JSONParser
from moto.core.utils import get_service_model

from devtools.moto_patches import json_requests

SERVICES = ("dynamodb", "dynamodbstreams", "sqs", "kms", "secretsmanager", "stepfunctions", "scheduler")


def _value(shape: Any, rng: random.Random, depth: int = 0) -> Any:
    kind = shape.type_name
    if kind == "structure":
        if depth > 5:
            return {}
        value = {}
        for name, member in shape.members.items():
            pick = rng.random()
            if pick < 0.5:
                value[member.serialization.get("name", name)] = _value(member, rng, depth + 1)
            elif pick < 0.6:
                value[member.serialization.get("name", name)] = None
        if rng.random() < 0.1:
            value["NotInTheModel"] = "x"
        return value
    if kind == "list":
        return [_value(shape.member, rng, depth + 1) for _ in range(rng.randint(0, 3) if depth < 5 else 0)]
    if kind == "map":
        return {f"k{i}": _value(shape.value, rng, depth + 1) for i in range(rng.randint(0, 3) if depth < 5 else 0)}
    if kind == "blob":
        return base64.b64encode(rng.randbytes(rng.randint(0, 12))).decode()
    if kind == "timestamp":
        return rng.choice([1_700_000_000, 1_700_000_000.5, "2026-11-24T10:00:00Z"])
    if kind in ("integer", "long", "short", "byte"):
        return rng.choice([0, 7, -3, 10**12])
    if kind in ("float", "double"):
        return rng.choice([0.5, 2, -1.25])
    if kind == "boolean":
        return rng.choice([True, False])
    return rng.choice(["", "text", "héllo"])


@pytest.mark.parametrize("service", SERVICES)
def test_requests_parse_as_motos_walk_parses_them(service: str) -> None:
    model = get_service_model(service)
    rng = random.Random(service)
    for name in model.operation_names:
        operation = model.operation_model(name)
        if operation.input_shape is None:
            continue
        for _ in range(6):
            body = json.dumps(_value(operation.input_shape, rng)).encode()
            json_requests.uninstall()
            theirs = JSONParser(operation, map_type=dict).parse({"body": body})  # type: ignore[typeddict-item]
            with json_requests.installed():
                ours = JSONParser(operation, map_type=dict).parse({"body": body})  # type: ignore[typeddict-item]
            assert ours == theirs, (service, name, body)
            assert type(ours) is type(theirs)


def test_other_parsers_keep_motos_walk() -> None:
    operation = get_service_model("dynamodb").operation_model("PutItem")
    body = json.dumps({"TableName": "t", "Item": {"pk": {"S": "a"}}}).encode()
    with json_requests.installed():
        parsed = JSONParser(operation, map_type=dict, blob_parser=bytes.fromhex).parse({"body": body})  # type: ignore[typeddict-item]
    assert parsed == {"TableName": "t", "Item": {"pk": {"S": "a"}}}


def test_a_shape_planned_on_another_thread_meanwhile_is_parsed_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """AttributeValue is recursive (M and L hold AttributeValues): while one thread plans it, another
    asking for its plan waits for the whole plan (it was given the unbuilt placeholder: IndexError)."""
    shape = get_service_model("dynamodb").shape_for("AttributeValue")
    monkeypatch.setattr(json_requests, "_PLANS", {})
    paused, resume = threading.Event(), threading.Event()
    plan = json_requests._plan

    def slow_plan(member: Any) -> Any:
        if member.name == "ListAttributeValue" and not paused.is_set():  # inside AttributeValue's build
            paused.set()
            resume.wait(10)
        return plan(member)

    monkeypatch.setattr(json_requests, "_plan", slow_plan)
    value = {"L": [{"M": {"n": {"N": "1"}}}]}
    parsed: list[Any] = []
    first = threading.Thread(target=lambda: parsed.append(plan(shape)(value)))
    first.start()
    assert paused.wait(10)
    second = threading.Thread(target=lambda: parsed.append(plan(shape)(value)))
    second.start()
    second.join(0.2)
    resume.set()
    first.join(10)
    second.join(10)
    assert parsed == [{"L": [{"M": {"n": {"N": "1"}}}]}] * 2


def test_guard_refuses_changed_source(monkeypatch: pytest.MonkeyPatch) -> None:
    json_requests.check_internals()

    def changed(self: Any, shape: Any, value: Any) -> Any:
        return value

    monkeypatch.setattr("moto.core.parse.BaseJSONParser._parse_structure", changed)
    with pytest.raises(RuntimeError, match=r"moto changed BaseJSONParser\._parse_structure"):
        json_requests.check_internals()
