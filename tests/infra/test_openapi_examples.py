"""Each request example of the OpenAPI document is a body its model accepts, and every request
body has one; each response example is an answer its response schema allows (Spectral checks the
document; this checks the examples against the code)."""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import postline
from infra.generate import OPENAPI
from infra.openapi_examples import REQUEST_EXAMPLES, response_examples


def request_models() -> dict[str, type[BaseModel]]:
    found: dict[str, type[BaseModel]] = {}
    for module in pkgutil.walk_packages(postline.__path__, "postline."):
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__name__ in REQUEST_EXAMPLES:
                found[value.__name__] = value
    return found


MODELS = request_models()


@pytest.mark.parametrize("name", sorted(REQUEST_EXAMPLES))
def test_the_example_is_a_body_its_model_accepts(name: str) -> None:
    assert name in MODELS, f"no model named {name}: remove its example or name the model"
    MODELS[name].model_validate(REQUEST_EXAMPLES[name])


def test_every_json_request_body_has_an_example() -> None:
    document: dict[str, Any] = json.loads(OPENAPI.read_text())
    bodies = [
        (method.upper(), path, op["requestBody"]["content"]["application/json"])
        for path, path_item in document["paths"].items()
        for method, op in path_item.items()
        if "application/json" in op.get("requestBody", {}).get("content", {})
    ]
    assert bodies, "the document has JSON request bodies"
    assert [(method, path) for method, path, body in bodies if "example" not in body] == []


DOCUMENT: dict[str, Any] = json.loads(OPENAPI.read_text())


def json_answers() -> dict[tuple[str, str], dict[str, Any]]:
    """(operationId, status) -> the application/json content of each success response."""
    return {
        (op["operationId"], status): response["content"]["application/json"]
        for path_item in DOCUMENT["paths"].values()
        for op in path_item.values()
        for status, response in op["responses"].items()
        if status.startswith("2") and "application/json" in response.get("content", {})
    }


ANSWERS = json_answers()
RESPONSE_EXAMPLES = response_examples()


def _closed(schema: Any) -> Any:
    """The schema with every object closed to the properties it names: an example keeping a field
    its model no longer has is stale too (pydantic's response schemas allow any extra field)."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: _closed(value) for key, value in schema.items()}
    if isinstance(schema.get("properties"), dict) and "additionalProperties" not in schema:
        closed["additionalProperties"] = False
    return closed


CLOSED_COMPONENTS = {"components": {"schemas": _closed(DOCUMENT["components"]["schemas"])}}


def _validator(schema: dict[str, Any]) -> Draft202012Validator:
    """The response's schema, its `$ref`s resolved in the document's components (closed)."""
    registry: Registry[Any] = Registry().with_resource(
        "urn:postline:openapi", Resource.from_contents(CLOSED_COMPONENTS, default_specification=DRAFT202012)
    )
    rooted = {**schema, "$id": "urn:postline:answer"}
    rooted = json.loads(json.dumps(rooted).replace('"#/components/', '"urn:postline:openapi#/components/'))
    return Draft202012Validator(rooted, registry=registry)


@pytest.mark.parametrize(("operation", "status"), sorted((op, s) for op, by in RESPONSE_EXAMPLES.items() for s in by))
def test_the_response_example_is_an_answer_its_schema_allows(operation: str, status: str) -> None:
    assert (operation, status) in ANSWERS, f"{operation} answers no JSON {status}: remove its example"
    example = RESPONSE_EXAMPLES[operation][status]
    errors = sorted(_validator(ANSWERS[(operation, status)]["schema"]).iter_errors(example), key=str)
    assert [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors] == []


def test_the_document_carries_each_response_example() -> None:
    assert RESPONSE_EXAMPLES, "infra/openapi_response_examples.json holds examples"
    for (operation, status), content in ANSWERS.items():
        if status in RESPONSE_EXAMPLES.get(operation, {}):
            assert content.get("example") == RESPONSE_EXAMPLES[operation][status], (operation, status)


def test_a_schema_violation_is_caught() -> None:
    """The check above can fail: an answer missing a required field, or with one its model lacks, is refused."""
    operation, status = "WhoAmI", "200"
    validator = _validator(ANSWERS[(operation, status)]["schema"])
    example = dict(RESPONSE_EXAMPLES[operation][status])
    assert not list(validator.iter_errors(example))
    assert list(validator.iter_errors({**example, "retired_field": 1}))
    example.pop(sorted(example)[0])
    assert list(validator.iter_errors(example))


def test_every_json_success_response_has_an_example() -> None:
    assert ANSWERS, "the document has JSON success responses"
    assert sorted(key for key, content in ANSWERS.items() if "example" not in content) == []
