from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.environment import Environment
from ..models.scope import Scope
from typing import cast


T = TypeVar("T", bound="IdentityKey")


@_attrs_define
class IdentityKey:
    """
    Attributes:
        id (None | str):
        scope (None | Scope):
        environment (Environment | None):
    """

    id: None | str
    scope: None | Scope
    environment: Environment | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id: None | str
        id = self.id

        scope: None | str
        if isinstance(self.scope, Scope):
            scope = self.scope.value
        else:
            scope = self.scope

        environment: None | str
        if isinstance(self.environment, Environment):
            environment = self.environment.value
        else:
            environment = self.environment

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "scope": scope,
                "environment": environment,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        id = _parse_id(d.pop("id"))

        def _parse_scope(data: object) -> None | Scope:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scope_type_0 = Scope(data)

                return scope_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Scope, data)

        scope = _parse_scope(d.pop("scope"))

        def _parse_environment(data: object) -> Environment | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                environment_type_0 = Environment(data)

                return environment_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Environment | None, data)

        environment = _parse_environment(d.pop("environment"))

        identity_key = cls(
            id=id,
            scope=scope,
            environment=environment,
        )

        identity_key.additional_properties = d
        return identity_key

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
