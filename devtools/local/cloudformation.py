"""Reading template.yaml the way CloudFormation would: parameters, intrinsics, dependency order.

Only what the embedded runtime needs: `Ref` and `Fn::GetAtt` (long form, as infra/generate.py
writes them), parameter defaults and overrides, and the pseudo parameters. Any other intrinsic
is an error, so the runtime never silently runs with a value the cloud would compute otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import yaml

ACCOUNT_ID = "123456789012"  # moto's default account
REGION = "us-east-1"
STACK_NAME = "postline-local"
PSEUDO_PARAMETERS = {
    "AWS::AccountId": ACCOUNT_ID,
    "AWS::Region": REGION,
    "AWS::Partition": "aws",
    "AWS::StackName": STACK_NAME,
    "AWS::URLSuffix": "amazonaws.com",
}


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class TemplateError(Exception):
    """The template asks for something the embedded runtime cannot honour."""


@dataclass(frozen=True)
class Template:
    path: Path
    body: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> Template:
        # libyaml's loader: the generated template is thousands of lines, and the pure-Python
        # loader took seconds of every start.
        body = yaml.load(path.read_text(), Loader=_LOADER)  # noqa: S506 (a safe loader)
        if not isinstance(body, dict) or not isinstance(body.get("Resources"), dict):
            raise TemplateError(f"{path} is not a CloudFormation template with Resources")
        return cls(path.resolve(), body)

    @property
    def conditions(self) -> dict[str, Any]:
        conditions: dict[str, Any] = self.body.get("Conditions") or {}
        return conditions

    @property
    def root(self) -> Path:
        """CodeUri and other relative paths are relative to the template's folder."""
        return self.path.parent

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        resources: dict[str, dict[str, Any]] = self.body["Resources"]
        return resources

    def of_type(self, resource_type: str) -> dict[str, dict[str, Any]]:
        return {lid: res for lid, res in self.resources.items() if res.get("Type") == resource_type}

    @property
    def function_globals(self) -> dict[str, Any]:
        found: dict[str, Any] = (self.body.get("Globals") or {}).get("Function") or {}
        return found

    def parameter_values(self, overrides: Mapping[str, str]) -> dict[str, str]:
        """Each parameter's override, else its Default; a parameter with neither is an error."""
        declared: dict[str, Any] = self.body.get("Parameters") or {}
        unknown = set(overrides) - set(declared)
        if unknown:
            raise TemplateError(f"no such template parameter: {', '.join(sorted(unknown))}")
        values = {}
        for name, spec in declared.items():
            if name in overrides:
                values[name] = overrides[name]
            elif "Default" in spec:
                values[name] = scalar(spec["Default"])
            else:
                raise TemplateError(f"parameter {name} has no Default: pass --parameter {name}=VALUE")
        return values


def physical_name(logical_id: str) -> str:
    """The name CloudFormation would generate, made predictable: postline-local-<LogicalId>."""
    return f"{STACK_NAME}-{logical_id}"


def scalar(value: Any) -> str:
    """A YAML scalar as CloudFormation renders it into a string (booleans lower-case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


class Attributes(Protocol):
    """What each emulated resource became: its Ref value and its GetAtt attributes."""

    def ref(self, logical_id: str) -> str: ...

    def get_att(self, logical_id: str, attribute: str) -> str: ...


class Resolver:
    def __init__(
        self, parameters: Mapping[str, str], resources: Attributes, conditions: Mapping[str, Any] | None = None
    ) -> None:
        self._parameters = parameters
        self._resources = resources
        self._conditions = conditions or {}  # the template's Conditions, evaluated on the parameters

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.resolve(item) for item in value]
        if not isinstance(value, dict):
            return value
        intrinsic = _intrinsic(value)
        if intrinsic is None:
            return {key: self.resolve(item) for key, item in value.items()}
        name, argument = intrinsic
        if name == "Ref":
            return self._ref(argument)
        if name == "Fn::GetAtt":
            logical_id, attribute = _get_att_target(argument)
            return self._resources.get_att(logical_id, attribute)
        if name == "Fn::Sub":
            return self._sub(argument)
        if name == "Fn::If":
            condition, when_true, when_false = argument
            return self.resolve(when_true if self.holds(condition) else when_false)
        if name == "Fn::Join":
            separator, parts = argument
            return separator.join(str(self.resolve(part)) for part in self.resolve(parts))
        raise TemplateError(
            f"{name} is not supported by the local runtime (only Ref, Fn::GetAtt, Fn::Sub, Fn::If and Fn::Join)"
        )

    def holds(self, condition: str) -> bool:
        """A named condition of the template, as CloudFormation evaluates it on the parameters."""
        if condition not in self._conditions:
            raise TemplateError(f"no condition {condition} in the template")
        return self._evaluate(self._conditions[condition])

    def _evaluate(self, expression: Any) -> bool:
        intrinsic = _intrinsic(expression) if isinstance(expression, dict) else None
        if intrinsic is None:
            raise TemplateError(f"not a condition: {expression!r}")
        name, argument = intrinsic
        if name == "Fn::Equals":
            left, right = (str(self.resolve(side)) for side in argument)
            return left == right
        if name == "Fn::Not":
            return not self._evaluate(argument[0])
        if name == "Fn::And":
            return all(self._evaluate(part) for part in argument)
        if name == "Fn::Or":
            return any(self._evaluate(part) for part in argument)
        if name == "Condition":
            return self.holds(argument)
        raise TemplateError(f"{name} is not a condition function the local runtime evaluates")

    def _sub(self, argument: Any) -> str:
        """Fn::Sub: "${Name}" is a Ref, "${Name.Attribute}" a GetAtt, "${!Literal}" stays "${Literal}"."""
        text, variables = (argument, {}) if isinstance(argument, str) else (argument[0], argument[1])

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return str(self.resolve(variables[name]))
            if "." in name and name not in PSEUDO_PARAMETERS:
                logical_id, attribute = name.split(".", 1)
                return self._resources.get_att(logical_id, attribute)
            return self._ref(name)

        return re.sub(r"\$\{([^}]+)\}", replace, str(text))

    def _ref(self, name: str) -> str:
        if name in self._parameters:
            return self._parameters[name]
        if name in PSEUDO_PARAMETERS:
            return PSEUDO_PARAMETERS[name]
        return self._resources.ref(name)


def references(value: Any) -> set[str]:
    """Logical ids (and parameter names) a value points at through Ref or Fn::GetAtt."""
    if isinstance(value, list):
        return set().union(*(references(item) for item in value))
    if not isinstance(value, dict):
        return set()
    intrinsic = _intrinsic(value)
    if intrinsic is None:
        return set().union(*(references(item) for item in value.values()))
    name, argument = intrinsic
    if name == "Ref":
        return {argument}
    if name == "Fn::GetAtt":
        return {_get_att_target(argument)[0]}
    if name == "Fn::Sub":
        text, variables = (argument, {}) if isinstance(argument, str) else (argument[0], argument[1])
        names = {n.split(".", 1)[0] for n in re.findall(r"\$\{([^!}][^}]*)\}", str(text))}
        return (names - set(variables) - set(PSEUDO_PARAMETERS)) | references(variables)
    return references(argument)


def dependency_order(resources: Mapping[str, dict[str, Any]]) -> list[str]:
    """Logical ids with every resource after the ones it refers to (template order otherwise)."""
    needs = {}
    for logical_id, resource in resources.items():
        depends_on = resource.get("DependsOn") or []
        explicit = {depends_on} if isinstance(depends_on, str) else set(depends_on)
        needs[logical_id] = (references(resource.get("Properties")) | explicit) & set(resources)
    ordered: list[str] = []
    while len(ordered) < len(needs):
        ready = [lid for lid in needs if lid not in ordered and needs[lid] <= set(ordered)]
        if not ready:
            cycle = sorted(set(needs) - set(ordered))
            raise TemplateError(f"circular references between {', '.join(cycle)}")
        ordered.extend(ready)
    return ordered


def _intrinsic(value: dict[str, Any]) -> tuple[str, Any] | None:
    if len(value) != 1:
        return None
    (name, argument), *_ = value.items()
    if name in ("Ref", "Condition") or name.startswith("Fn::"):
        return name, argument
    return None


def _get_att_target(argument: Any) -> tuple[str, str]:
    if isinstance(argument, str):
        logical_id, _, attribute = argument.partition(".")
        return logical_id, attribute
    logical_id, attribute = argument
    return str(logical_id), str(attribute)
