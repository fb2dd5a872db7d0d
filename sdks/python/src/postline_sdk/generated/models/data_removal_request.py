from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="DataRemovalRequest")


@_attrs_define
class DataRemovalRequest:
    """One address (`email`), or up to 100 (`emails`, the batch form): one removal each.

    Attributes:
        email (None | str | Unset): The address to erase.
        emails (list[str] | None | Unset): The batch form: up to 100 addresses.
        include_subaccounts (bool | Unset): An organisation's parent: erase the address in every subaccount too.
            Default: False.
    """

    email: None | str | Unset = UNSET
    emails: list[str] | None | Unset = UNSET
    include_subaccounts: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        email: None | str | Unset
        if isinstance(self.email, Unset):
            email = UNSET
        else:
            email = self.email

        emails: list[str] | None | Unset
        if isinstance(self.emails, Unset):
            emails = UNSET
        elif isinstance(self.emails, list):
            emails = self.emails

        else:
            emails = self.emails

        include_subaccounts = self.include_subaccounts

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if email is not UNSET:
            field_dict["email"] = email
        if emails is not UNSET:
            field_dict["emails"] = emails
        if include_subaccounts is not UNSET:
            field_dict["include_subaccounts"] = include_subaccounts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_email(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        email = _parse_email(d.pop("email", UNSET))

        def _parse_emails(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                emails_type_0 = cast(list[str], data)

                return emails_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        emails = _parse_emails(d.pop("emails", UNSET))

        include_subaccounts = d.pop("include_subaccounts", UNSET)

        data_removal_request = cls(
            email=email,
            emails=emails,
            include_subaccounts=include_subaccounts,
        )

        return data_removal_request
