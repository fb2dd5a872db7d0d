"""Each request example of the OpenAPI document is a body its model accepts, and every request
body has one (Spectral checks the document; this checks the examples against the code)."""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest
from pydantic import BaseModel

import postline
from infra.generate import OPENAPI
from infra.openapi_examples import REQUEST_EXAMPLES


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
