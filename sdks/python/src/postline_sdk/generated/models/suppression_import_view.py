from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.import_status import ImportStatus
from ..models.suppression_type import SuppressionType
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.row_error import RowError


T = TypeVar("T", bound="SuppressionImportView")


@_attrs_define
class SuppressionImportView:
    """The interface's SuppressionImport.

    Attributes:
        id (str):
        type_ (SuppressionType):
        status (ImportStatus):
        filename (str):
        total_rows (int | None): Rows after the header; set once the file is read whole.
        processed_rows (int):
        added (int): Rows whose address is on the list now, including those already there.
        skipped (int):
        errors (list[RowError] | None): The first 500 skipped rows (row 1 is the header).
        error_message (None | str):
        created_at (datetime.datetime):
        completed_at (datetime.datetime | None):
    """

    id: str
    type_: SuppressionType
    status: ImportStatus
    filename: str
    total_rows: int | None
    processed_rows: int
    added: int
    skipped: int
    errors: list[RowError] | None
    error_message: None | str
    created_at: datetime.datetime
    completed_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.row_error import RowError  # noqa: PLC0415

        id = self.id

        type_ = self.type_.value

        status = self.status.value

        filename = self.filename

        total_rows: int | None
        total_rows = self.total_rows

        processed_rows = self.processed_rows

        added = self.added

        skipped = self.skipped

        errors: list[dict[str, Any]] | None
        if isinstance(self.errors, list):
            errors = []
            for errors_type_0_item_data in self.errors:
                errors_type_0_item = errors_type_0_item_data.to_dict()
                errors.append(errors_type_0_item)

        else:
            errors = self.errors

        error_message: None | str
        error_message = self.error_message

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "status": status,
                "filename": filename,
                "total_rows": total_rows,
                "processed_rows": processed_rows,
                "added": added,
                "skipped": skipped,
                "errors": errors,
                "error_message": error_message,
                "created_at": created_at,
                "completed_at": completed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.row_error import RowError  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = SuppressionType(d.pop("type"))

        status = ImportStatus(d.pop("status"))

        filename = d.pop("filename")

        def _parse_total_rows(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        total_rows = _parse_total_rows(d.pop("total_rows"))

        processed_rows = d.pop("processed_rows")

        added = d.pop("added")

        skipped = d.pop("skipped")

        def _parse_errors(data: object) -> list[RowError] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                errors_type_0 = []
                _errors_type_0 = data
                for errors_type_0_item_data in _errors_type_0:
                    errors_type_0_item = RowError.from_dict(errors_type_0_item_data)

                    errors_type_0.append(errors_type_0_item)

                return errors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RowError] | None, data)

        errors = _parse_errors(d.pop("errors"))

        def _parse_error_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_message = _parse_error_message(d.pop("error_message"))

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

        suppression_import_view = cls(
            id=id,
            type_=type_,
            status=status,
            filename=filename,
            total_rows=total_rows,
            processed_rows=processed_rows,
            added=added,
            skipped=skipped,
            errors=errors,
            error_message=error_message,
            created_at=created_at,
            completed_at=completed_at,
        )

        suppression_import_view.additional_properties = d
        return suppression_import_view

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
