from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast


T = TypeVar("T", bound="BulkCreate")


@_attrs_define
class BulkCreate:
    """
    Attributes:
        emails (list[str] | None | Unset): The addresses, as your list holds them. Or send `csv`, or neither to upload a
            file.
        csv (None | str | Unset): A CSV file's text: a header row naming an `email` column (other columns are ignored),
            then a row per address. Up to 5,000,000 characters; send neither `csv` nor `emails` to PUT a larger file to the
            `upload_url` the reply holds (live keys).
        filename (None | str | Unset): The file's name, shown on the job (a CSV job's default: list.csv).
        webhook_url (None | str | Unset): On completion the job is POSTed here, signed with the webhooks' Ed25519
            header.
        suppress (bool | Unset): Add the undeliverable results to the bounces list (source verification). Live keys
            only. Default: False.
    """

    emails: list[str] | None | Unset = UNSET
    csv: None | str | Unset = UNSET
    filename: None | str | Unset = UNSET
    webhook_url: None | str | Unset = UNSET
    suppress: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        emails: list[str] | None | Unset
        if isinstance(self.emails, Unset):
            emails = UNSET
        elif isinstance(self.emails, list):
            emails = self.emails

        else:
            emails = self.emails

        csv: None | str | Unset
        if isinstance(self.csv, Unset):
            csv = UNSET
        else:
            csv = self.csv

        filename: None | str | Unset
        if isinstance(self.filename, Unset):
            filename = UNSET
        else:
            filename = self.filename

        webhook_url: None | str | Unset
        if isinstance(self.webhook_url, Unset):
            webhook_url = UNSET
        else:
            webhook_url = self.webhook_url

        suppress = self.suppress

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if emails is not UNSET:
            field_dict["emails"] = emails
        if csv is not UNSET:
            field_dict["csv"] = csv
        if filename is not UNSET:
            field_dict["filename"] = filename
        if webhook_url is not UNSET:
            field_dict["webhook_url"] = webhook_url
        if suppress is not UNSET:
            field_dict["suppress"] = suppress

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

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

        def _parse_csv(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        csv = _parse_csv(d.pop("csv", UNSET))

        def _parse_filename(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        filename = _parse_filename(d.pop("filename", UNSET))

        def _parse_webhook_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_url = _parse_webhook_url(d.pop("webhook_url", UNSET))

        suppress = d.pop("suppress", UNSET)

        bulk_create = cls(
            emails=emails,
            csv=csv,
            filename=filename,
            webhook_url=webhook_url,
            suppress=suppress,
        )

        return bulk_create
