from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset


T = TypeVar("T", bound="BulkSummary")


@_attrs_define
class BulkSummary:
    """
    Attributes:
        valid (int | Unset):  Default: 0.
        invalid (int | Unset):  Default: 0.
        catch_all (int | Unset):  Default: 0.
        unknown (int | Unset):  Default: 0.
        do_not_mail (int | Unset):  Default: 0.
        spamtrap (int | Unset):  Default: 0.
        abuse (int | Unset):  Default: 0.
    """

    valid: int | Unset = 0
    invalid: int | Unset = 0
    catch_all: int | Unset = 0
    unknown: int | Unset = 0
    do_not_mail: int | Unset = 0
    spamtrap: int | Unset = 0
    abuse: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        valid = self.valid

        invalid = self.invalid

        catch_all = self.catch_all

        unknown = self.unknown

        do_not_mail = self.do_not_mail

        spamtrap = self.spamtrap

        abuse = self.abuse

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if valid is not UNSET:
            field_dict["valid"] = valid
        if invalid is not UNSET:
            field_dict["invalid"] = invalid
        if catch_all is not UNSET:
            field_dict["catch_all"] = catch_all
        if unknown is not UNSET:
            field_dict["unknown"] = unknown
        if do_not_mail is not UNSET:
            field_dict["do_not_mail"] = do_not_mail
        if spamtrap is not UNSET:
            field_dict["spamtrap"] = spamtrap
        if abuse is not UNSET:
            field_dict["abuse"] = abuse

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        valid = d.pop("valid", UNSET)

        invalid = d.pop("invalid", UNSET)

        catch_all = d.pop("catch_all", UNSET)

        unknown = d.pop("unknown", UNSET)

        do_not_mail = d.pop("do_not_mail", UNSET)

        spamtrap = d.pop("spamtrap", UNSET)

        abuse = d.pop("abuse", UNSET)

        bulk_summary = cls(
            valid=valid,
            invalid=invalid,
            catch_all=catch_all,
            unknown=unknown,
            do_not_mail=do_not_mail,
            spamtrap=spamtrap,
            abuse=abuse,
        )

        bulk_summary.additional_properties = d
        return bulk_summary

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
