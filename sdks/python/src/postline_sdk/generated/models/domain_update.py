from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="DomainUpdate")


@_attrs_define
class DomainUpdate:
    """PATCH: the fields present change (null removes). Sharing is the owner workspace's.

    Attributes:
        tracking_subdomain (None | str | Unset):
        region (None | str | Unset):
        shared_with_company (bool | None | Unset): Every other workspace of the organisation (its parent, its
            subaccounts) may send from it once it is verified; they read it but cannot change, check, rotate or delete it.
        external_accounts (list[str] | None | Unset): Accounts outside the organisation (by account id, at most 25)
            granted sending from it: the whole list, replacing the current one ([] or null revokes every grant).
            shared_external is true while it is not empty.
    """

    tracking_subdomain: None | str | Unset = UNSET
    region: None | str | Unset = UNSET
    shared_with_company: bool | None | Unset = UNSET
    external_accounts: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        tracking_subdomain: None | str | Unset
        if isinstance(self.tracking_subdomain, Unset):
            tracking_subdomain = UNSET
        else:
            tracking_subdomain = self.tracking_subdomain

        region: None | str | Unset
        if isinstance(self.region, Unset):
            region = UNSET
        else:
            region = self.region

        shared_with_company: bool | None | Unset
        if isinstance(self.shared_with_company, Unset):
            shared_with_company = UNSET
        else:
            shared_with_company = self.shared_with_company

        external_accounts: list[str] | None | Unset
        if isinstance(self.external_accounts, Unset):
            external_accounts = UNSET
        elif isinstance(self.external_accounts, list):
            external_accounts = self.external_accounts

        else:
            external_accounts = self.external_accounts

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if tracking_subdomain is not UNSET:
            field_dict["tracking_subdomain"] = tracking_subdomain
        if region is not UNSET:
            field_dict["region"] = region
        if shared_with_company is not UNSET:
            field_dict["shared_with_company"] = shared_with_company
        if external_accounts is not UNSET:
            field_dict["external_accounts"] = external_accounts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_tracking_subdomain(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tracking_subdomain = _parse_tracking_subdomain(d.pop("tracking_subdomain", UNSET))

        def _parse_region(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        region = _parse_region(d.pop("region", UNSET))

        def _parse_shared_with_company(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        shared_with_company = _parse_shared_with_company(d.pop("shared_with_company", UNSET))

        def _parse_external_accounts(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                external_accounts_type_0 = cast(list[str], data)

                return external_accounts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        external_accounts = _parse_external_accounts(d.pop("external_accounts", UNSET))

        domain_update = cls(
            tracking_subdomain=tracking_subdomain,
            region=region,
            shared_with_company=shared_with_company,
            external_accounts=external_accounts,
        )

        return domain_update
