from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.environment import Environment
from ..models.scope import Scope
from typing import cast
import datetime


T = TypeVar("T", bound="KeyCreated")


@_attrs_define
class KeyCreated:
    """
    Attributes:
        id (str):
        name (str):
        prefix (str):
        scope (Scope):
        env (Environment):
        key (str): The full secret. Shown only in this reply; store it now.
        created_at (datetime.datetime):
    """

    id: str
    name: str
    prefix: str
    scope: Scope
    env: Environment
    key: str
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        prefix = self.prefix

        scope = self.scope.value

        env = self.env.value

        key = self.key

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "prefix": prefix,
                "scope": scope,
                "env": env,
                "key": key,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        prefix = d.pop("prefix")

        scope = Scope(d.pop("scope"))

        env = Environment(d.pop("env"))

        key = d.pop("key")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        key_created = cls(
            id=id,
            name=name,
            prefix=prefix,
            scope=scope,
            env=env,
            key=key,
            created_at=created_at,
        )

        key_created.additional_properties = d
        return key_created

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
