from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
    from ..models.test_outcomes_send import TestOutcomesSend
    from ..models.test_outcomes_verify import TestOutcomesVerify


T = TypeVar("T", bound="TestOutcomes")


@_attrs_define
class TestOutcomes:
    """Weights the simulator draws outcomes from for a test key (relative, need not sum to 1).

    Attributes:
        send (TestOutcomesSend | Unset):
        verify (TestOutcomesVerify | Unset):
    """

    send: TestOutcomesSend | Unset = UNSET
    verify: TestOutcomesVerify | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.test_outcomes_send import TestOutcomesSend  # noqa: PLC0415
        from ..models.test_outcomes_verify import TestOutcomesVerify  # noqa: PLC0415

        send: dict[str, Any] | Unset = UNSET
        if not isinstance(self.send, Unset):
            send = self.send.to_dict()

        verify: dict[str, Any] | Unset = UNSET
        if not isinstance(self.verify, Unset):
            verify = self.verify.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if send is not UNSET:
            field_dict["send"] = send
        if verify is not UNSET:
            field_dict["verify"] = verify

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.test_outcomes_send import TestOutcomesSend  # noqa: PLC0415
        from ..models.test_outcomes_verify import TestOutcomesVerify  # noqa: PLC0415

        d = dict(src_dict)
        _send = d.pop("send", UNSET)
        send: TestOutcomesSend | Unset
        if isinstance(_send, Unset):
            send = UNSET
        else:
            send = TestOutcomesSend.from_dict(_send)

        _verify = d.pop("verify", UNSET)
        verify: TestOutcomesVerify | Unset
        if isinstance(_verify, Unset):
            verify = UNSET
        else:
            verify = TestOutcomesVerify.from_dict(_verify)

        test_outcomes = cls(
            send=send,
            verify=verify,
        )

        test_outcomes.additional_properties = d
        return test_outcomes

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
