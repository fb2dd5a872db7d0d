from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.removal_status import RemovalStatus
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.erasure_receipt import ErasureReceipt
    from ..models.removal_counts import RemovalCounts


T = TypeVar("T", bound="DataRemoval")


@_attrs_define
class DataRemoval:
    """
    Attributes:
        removal_id (str):
        status (RemovalStatus):
        email (str): The address while the removal runs; masked (a***@e***.com) once it ended.
        counts (None | RemovalCounts): Set once done.
        created_at (datetime.datetime):
        completed_at (datetime.datetime | None):
        address_hash (str): hmac-sha256:<hex>, the keyed hash the receipt states.
        receipt (ErasureReceipt | None | Unset): Set once done.
        error (None | str | Unset): Why it failed.
    """

    removal_id: str
    status: RemovalStatus
    email: str
    counts: None | RemovalCounts
    created_at: datetime.datetime
    completed_at: datetime.datetime | None
    address_hash: str
    receipt: ErasureReceipt | None | Unset = UNSET
    error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.erasure_receipt import ErasureReceipt  # noqa: PLC0415
        from ..models.removal_counts import RemovalCounts  # noqa: PLC0415

        removal_id = self.removal_id

        status = self.status.value

        email = self.email

        counts: dict[str, Any] | None
        if isinstance(self.counts, RemovalCounts):
            counts = self.counts.to_dict()
        else:
            counts = self.counts

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        address_hash = self.address_hash

        receipt: dict[str, Any] | None | Unset
        if isinstance(self.receipt, Unset):
            receipt = UNSET
        elif isinstance(self.receipt, ErasureReceipt):
            receipt = self.receipt.to_dict()
        else:
            receipt = self.receipt

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "removal_id": removal_id,
                "status": status,
                "email": email,
                "counts": counts,
                "created_at": created_at,
                "completed_at": completed_at,
                "address_hash": address_hash,
            }
        )
        if receipt is not UNSET:
            field_dict["receipt"] = receipt
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.erasure_receipt import ErasureReceipt  # noqa: PLC0415
        from ..models.removal_counts import RemovalCounts  # noqa: PLC0415

        d = dict(src_dict)
        removal_id = d.pop("removal_id")

        status = RemovalStatus(d.pop("status"))

        email = d.pop("email")

        def _parse_counts(data: object) -> None | RemovalCounts:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                counts_type_0 = RemovalCounts.from_dict(data)

                return counts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RemovalCounts, data)

        counts = _parse_counts(d.pop("counts"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        address_hash = d.pop("address_hash")

        def _parse_receipt(data: object) -> ErasureReceipt | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                receipt_type_0 = ErasureReceipt.from_dict(data)

                return receipt_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErasureReceipt | None | Unset, data)

        receipt = _parse_receipt(d.pop("receipt", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        data_removal = cls(
            removal_id=removal_id,
            status=status,
            email=email,
            counts=counts,
            created_at=created_at,
            completed_at=completed_at,
            address_hash=address_hash,
            receipt=receipt,
            error=error,
        )

        data_removal.additional_properties = d
        return data_removal

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
