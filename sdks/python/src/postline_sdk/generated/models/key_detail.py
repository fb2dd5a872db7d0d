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

if TYPE_CHECKING:
    from ..models.allowlist_entry import AllowlistEntry
    from ..models.test_outcomes import TestOutcomes


T = TypeVar("T", bound="KeyDetail")


@_attrs_define
class KeyDetail:
    """
    Attributes:
        id (str):
        name (str):
        prefix (str):
        scope (Scope):
        env (Environment):
        verify_before_send (bool | None):
        test_outcomes (None | TestOutcomes):
        ip_allowlist (list[AllowlistEntry]):
        last_used_at (datetime.datetime | None):
        created_at (datetime.datetime):
    """

    id: str
    name: str
    prefix: str
    scope: Scope
    env: Environment
    verify_before_send: bool | None
    test_outcomes: None | TestOutcomes
    ip_allowlist: list[AllowlistEntry]
    last_used_at: datetime.datetime | None
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.allowlist_entry import AllowlistEntry  # noqa: PLC0415
        from ..models.test_outcomes import TestOutcomes  # noqa: PLC0415

        id = self.id

        name = self.name

        prefix = self.prefix

        scope = self.scope.value

        env = self.env.value

        verify_before_send: bool | None
        verify_before_send = self.verify_before_send

        test_outcomes: dict[str, Any] | None
        if isinstance(self.test_outcomes, TestOutcomes):
            test_outcomes = self.test_outcomes.to_dict()
        else:
            test_outcomes = self.test_outcomes

        ip_allowlist = []
        for ip_allowlist_item_data in self.ip_allowlist:
            ip_allowlist_item = ip_allowlist_item_data.to_dict()
            ip_allowlist.append(ip_allowlist_item)

        last_used_at: None | str
        if isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

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
                "verify_before_send": verify_before_send,
                "test_outcomes": test_outcomes,
                "ip_allowlist": ip_allowlist,
                "last_used_at": last_used_at,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allowlist_entry import AllowlistEntry  # noqa: PLC0415
        from ..models.test_outcomes import TestOutcomes  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        prefix = d.pop("prefix")

        scope = Scope(d.pop("scope"))

        env = Environment(d.pop("env"))

        def _parse_verify_before_send(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        verify_before_send = _parse_verify_before_send(d.pop("verify_before_send"))

        def _parse_test_outcomes(data: object) -> None | TestOutcomes:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                test_outcomes_type_0 = TestOutcomes.from_dict(data)

                return test_outcomes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TestOutcomes, data)

        test_outcomes = _parse_test_outcomes(d.pop("test_outcomes"))

        ip_allowlist = []
        _ip_allowlist = d.pop("ip_allowlist")
        for ip_allowlist_item_data in _ip_allowlist:
            ip_allowlist_item = AllowlistEntry.from_dict(ip_allowlist_item_data)

            ip_allowlist.append(ip_allowlist_item)

        def _parse_last_used_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_used_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        key_detail = cls(
            id=id,
            name=name,
            prefix=prefix,
            scope=scope,
            env=env,
            verify_before_send=verify_before_send,
            test_outcomes=test_outcomes,
            ip_allowlist=ip_allowlist,
            last_used_at=last_used_at,
            created_at=created_at,
        )

        key_detail.additional_properties = d
        return key_detail

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
