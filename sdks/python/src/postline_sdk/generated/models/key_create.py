from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.environment import Environment
from ..models.scope import Scope
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.allowlist_entry import AllowlistEntry
    from ..models.test_outcomes import TestOutcomes


T = TypeVar("T", bound="KeyCreate")


@_attrs_define
class KeyCreate:
    """
    Attributes:
        name (str):
        scope (Scope | Unset):
        env (Environment | Unset):
        verify_before_send (bool | None | Unset):
        test_outcomes (None | TestOutcomes | Unset):
        ip_allowlist (list[AllowlistEntry] | Unset):
    """

    name: str
    scope: Scope | Unset = UNSET
    env: Environment | Unset = UNSET
    verify_before_send: bool | None | Unset = UNSET
    test_outcomes: None | TestOutcomes | Unset = UNSET
    ip_allowlist: list[AllowlistEntry] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.allowlist_entry import AllowlistEntry  # noqa: PLC0415
        from ..models.test_outcomes import TestOutcomes  # noqa: PLC0415

        name = self.name

        scope: str | Unset = UNSET
        if not isinstance(self.scope, Unset):
            scope = self.scope.value

        env: str | Unset = UNSET
        if not isinstance(self.env, Unset):
            env = self.env.value

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

        ip_allowlist: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.ip_allowlist, Unset):
            ip_allowlist = []
            for ip_allowlist_item_data in self.ip_allowlist:
                ip_allowlist_item = ip_allowlist_item_data.to_dict()
                ip_allowlist.append(ip_allowlist_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if scope is not UNSET:
            field_dict["scope"] = scope
        if env is not UNSET:
            field_dict["env"] = env
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
        name = d.pop("name")

        _scope = d.pop("scope", UNSET)
        scope: Scope | Unset
        if isinstance(_scope, Unset):
            scope = UNSET
        else:
            scope = Scope(_scope)

        _env = d.pop("env", UNSET)
        env: Environment | Unset
        if isinstance(_env, Unset):
            env = UNSET
        else:
            env = Environment(_env)

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

        _ip_allowlist = d.pop("ip_allowlist", UNSET)
        ip_allowlist: list[AllowlistEntry] | Unset = UNSET
        if _ip_allowlist is not UNSET:
            ip_allowlist = []
            for ip_allowlist_item_data in _ip_allowlist:
                ip_allowlist_item = AllowlistEntry.from_dict(ip_allowlist_item_data)

                ip_allowlist.append(ip_allowlist_item)

        key_create = cls(
            name=name,
            scope=scope,
            env=env,
            verify_before_send=verify_before_send,
            test_outcomes=test_outcomes,
            ip_allowlist=ip_allowlist,
        )

        return key_create
