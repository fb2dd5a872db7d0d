from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.finding import Finding
from ..models.record_purpose import RecordPurpose
from ..models.record_type import RecordType
from typing import cast


T = TypeVar("T", bound="DomainRecordView")


@_attrs_define
class DomainRecordView:
    """
    Attributes:
        type_ (RecordType):
        host (str):
        value (str): What to publish (DMARC: the policy found, or the one we recommend).
        ok (bool):
        purpose (RecordPurpose):
        status (Finding): What a check found at a record's host.
        detail (None | str): The value found instead, why receivers refuse it, or how to fix it.
    """

    type_: RecordType
    host: str
    value: str
    ok: bool
    purpose: RecordPurpose
    status: Finding
    detail: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        host = self.host

        value = self.value

        ok = self.ok

        purpose = self.purpose.value

        status = self.status.value

        detail: None | str
        detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "host": host,
                "value": value,
                "ok": ok,
                "purpose": purpose,
                "status": status,
                "detail": detail,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = RecordType(d.pop("type"))

        host = d.pop("host")

        value = d.pop("value")

        ok = d.pop("ok")

        purpose = RecordPurpose(d.pop("purpose"))

        status = Finding(d.pop("status"))

        def _parse_detail(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        detail = _parse_detail(d.pop("detail"))

        domain_record_view = cls(
            type_=type_,
            host=host,
            value=value,
            ok=ok,
            purpose=purpose,
            status=status,
            detail=detail,
        )

        domain_record_view.additional_properties = d
        return domain_record_view

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
