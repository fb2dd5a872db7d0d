"""The runtime resolves a template's Fn::If on its Conditions as CloudFormation does (the console's
sign-in chooses between its Cognito pool and the parameters' key set that way)."""

from __future__ import annotations

from typing import Any

import pytest

from devtools.local.cloudformation import Resolver, TemplateError

CONDITIONS: dict[str, Any] = {
    "HasConsole": {"Fn::Equals": [{"Ref": "ConsoleHosting"}, "enabled"]},
    "UseCognito": {"Fn::And": [{"Condition": "HasConsole"}, {"Fn::Equals": [{"Ref": "ConsoleSignIn"}, "cognito"]}]},
    "NoPrefix": {"Fn::Not": [{"Fn::Equals": [{"Ref": "Prefix"}, ""]}]},
    "Either": {"Fn::Or": [{"Condition": "UseCognito"}, {"Condition": "NoPrefix"}]},
}


class _Resources:
    def ref(self, logical_id: str) -> str:
        return f"ref-of-{logical_id}"

    def get_att(self, logical_id: str, attribute: str) -> str:
        return f"{logical_id}.{attribute}"


def resolver(**parameters: str) -> Resolver:
    defaults = {"ConsoleHosting": "disabled", "ConsoleSignIn": "cognito", "Prefix": "", "ConsoleJwks": "{}"}
    return Resolver({**defaults, **parameters}, _Resources(), CONDITIONS)


AUDIENCE = {
    "Fn::If": [
        "UseCognito",
        {"Fn::Join": [",", [{"Ref": "ConsoleTestClient"}, {"Ref": "ConsoleLiveClient"}]]},
        {"Ref": "ConsoleJwks"},
    ]
}


def test_fn_if_takes_the_branch_its_condition_names() -> None:
    assert resolver().resolve(AUDIENCE) == "{}"
    enabled = resolver(ConsoleHosting="enabled")
    assert enabled.resolve(AUDIENCE) == "ref-of-ConsoleTestClient,ref-of-ConsoleLiveClient"
    assert resolver(ConsoleHosting="enabled", ConsoleSignIn="external").resolve(AUDIENCE) == "{}"


def test_not_or_and_nested_conditions_evaluate_on_the_parameters() -> None:
    assert resolver().holds("NoPrefix") is False and resolver(Prefix="acme").holds("NoPrefix") is True
    assert resolver().holds("Either") is False
    assert resolver(Prefix="acme").holds("Either") is True


def test_an_unknown_condition_is_a_template_error() -> None:
    with pytest.raises(TemplateError):
        resolver().resolve({"Fn::If": ["Nowhere", "a", "b"]})
