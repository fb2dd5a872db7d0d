from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.scope import Scope
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.allowlist_entry import AllowlistEntry
    from ..models.test_outcomes import TestOutcomes


T = TypeVar("T", bound="KeyUpdate")


@_attrs_define
class KeyUpdate:
    """PATCH: only the fields present change. test_outcomes null resets a test key to the defaults.

    Attributes:
        name (None | str | Unset):
        scope (None | Scope | Unset):
        verify_before_send (bool | None | Unset):
        test_outcomes (None | TestOutcomes | Unset):
        ip_allowlist (list[AllowlistEntry] | None | Unset):
    """

    name: None | str | Unset = UNSET
    scope: None | Scope | Unset = UNSET
    verify_before_send: bool | None | Unset = UNSET
    test_outcomes: None | TestOutcomes | Unset = UNSET
    ip_allowlist: list[AllowlistEntry] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.allowlist_entry import AllowlistEntry  # noqa: PLC0415
        from ..models.test_outcomes import TestOutcomes  # noqa: PLC0415

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        elif isinstance(self.scope, Scope):
            scope = self.scope.value
        else:
            scope = self.scope

        verify_before_send: bool | None | Unset
        if isinstance(self.verify_before_send, Unset):
            verify_before_send = UNSET
        else:
            verify_before_send = self.verify_before_send

        test_outcomes: dict[str, Any] | None | Unset
        if isinstance(self.test_outcomes, Unset):
            test_outcomes = UNSET
        elif isinstance(self.test_outcomes, TestOutcomes):
            test_outcomes = self.test_outcomes.to_dict()
        else:
            test_outcomes = self.test_outcomes

        ip_allowlist: list[dict[str, Any]] | None | Unset
        if isinstance(self.ip_allowlist, Unset):
            ip_allowlist = UNSET
        elif isinstance(self.ip_allowlist, list):
            ip_allowlist = []
            for ip_allowlist_type_0_item_data in self.ip_allowlist:
                ip_allowlist_type_0_item = ip_allowlist_type_0_item_data.to_dict()
                ip_allowlist.append(ip_allowlist_type_0_item)

        else:
            ip_allowlist = self.ip_allowlist

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if scope is not UNSET:
            field_dict["scope"] = scope
        if verify_before_send is not UNSET:
            field_dict["verify_before_send"] = verify_before_send
        if test_outcomes is not UNSET:
            field_dict["test_outcomes"] = test_outcomes
        if ip_allowlist is not UNSET:
            field_dict["ip_allowlist"] = ip_allowlist

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allowlist_entry import AllowlistEntry  # noqa: PLC0415
        from ..models.test_outcomes import TestOutcomes  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_scope(data: object) -> None | Scope | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scope_type_0 = Scope(data)

                return scope_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Scope | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        def _parse_verify_before_send(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        verify_before_send = _parse_verify_before_send(d.pop("verify_before_send", UNSET))

        def _parse_test_outcomes(data: object) -> None | TestOutcomes | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                test_outcomes_type_0 = TestOutcomes.from_dict(data)

                return test_outcomes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TestOutcomes | Unset, data)

        test_outcomes = _parse_test_outcomes(d.pop("test_outcomes", UNSET))

        def _parse_ip_allowlist(data: object) -> list[AllowlistEntry] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ip_allowlist_type_0 = []
                _ip_allowlist_type_0 = data
                for ip_allowlist_type_0_item_data in _ip_allowlist_type_0:
                    ip_allowlist_type_0_item = AllowlistEntry.from_dict(ip_allowlist_type_0_item_data)

                    ip_allowlist_type_0.append(ip_allowlist_type_0_item)

                return ip_allowlist_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AllowlistEntry] | None | Unset, data)

        ip_allowlist = _parse_ip_allowlist(d.pop("ip_allowlist", UNSET))

        key_update = cls(
            name=name,
            scope=scope,
            verify_before_send=verify_before_send,
            test_outcomes=test_outcomes,
            ip_allowlist=ip_allowlist,
        )

        return key_update
