from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset


T = TypeVar("T", bound="SubaccountCreate")


@_attrs_define
class SubaccountCreate:
    """
    Attributes:
        name (str):
        slug (str): URL-safe (a-z, 0-9, '-'), unique in the organisation, fixed at creation; not a UUID.
    """

    name: str
    slug: str

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        slug = self.slug

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "slug": slug,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        slug = d.pop("slug")

        subaccount_create = cls(
            name=name,
            slug=slug,
        )

        return subaccount_create
