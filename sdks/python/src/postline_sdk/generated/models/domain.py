from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.domain_status import DomainStatus
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.domain_record_view import DomainRecordView


T = TypeVar("T", bound="Domain")


@_attrs_define
class Domain:
    """
    Attributes:
        id (str):
        domain (str):
        status (DomainStatus):
        spf (bool):
        dkim (bool):
        dmarc (bool):
        region (None | str):
        dkim_selector (None | str):
        tracking_subdomain (None | str):
        dns_records (list[DomainRecordView]):
        sent_count (int):
        reputation (int | None):
        created_at (datetime.datetime):
        verified_at (datetime.datetime | None):
        shared_with_company (bool):
        shared_external (bool):
        owner_workspace_name (None | str):
        external_accounts (list[str] | None): The accounts outside the organisation granted sending from it: the owner's
            view only (null where another workspace reads a domain shared with it).
    """

    id: str
    domain: str
    status: DomainStatus
    spf: bool
    dkim: bool
    dmarc: bool
    region: None | str
    dkim_selector: None | str
    tracking_subdomain: None | str
    dns_records: list[DomainRecordView]
    sent_count: int
    reputation: int | None
    created_at: datetime.datetime
    verified_at: datetime.datetime | None
    shared_with_company: bool
    shared_external: bool
    owner_workspace_name: None | str
    external_accounts: list[str] | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.domain_record_view import DomainRecordView  # noqa: PLC0415

        id = self.id

        domain = self.domain

        status = self.status.value

        spf = self.spf

        dkim = self.dkim

        dmarc = self.dmarc

        region: None | str
        region = self.region

        dkim_selector: None | str
        dkim_selector = self.dkim_selector

        tracking_subdomain: None | str
        tracking_subdomain = self.tracking_subdomain

        dns_records = []
        for dns_records_item_data in self.dns_records:
            dns_records_item = dns_records_item_data.to_dict()
            dns_records.append(dns_records_item)

        sent_count = self.sent_count

        reputation: int | None
        reputation = self.reputation

        created_at = self.created_at.isoformat()

        verified_at: None | str
        if isinstance(self.verified_at, datetime.datetime):
            verified_at = self.verified_at.isoformat()
        else:
            verified_at = self.verified_at

        shared_with_company = self.shared_with_company

        shared_external = self.shared_external

        owner_workspace_name: None | str
        owner_workspace_name = self.owner_workspace_name

        external_accounts: list[str] | None
        if isinstance(self.external_accounts, list):
            external_accounts = self.external_accounts

        else:
            external_accounts = self.external_accounts

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "domain": domain,
                "status": status,
                "spf": spf,
                "dkim": dkim,
                "dmarc": dmarc,
                "region": region,
                "dkim_selector": dkim_selector,
                "tracking_subdomain": tracking_subdomain,
                "dns_records": dns_records,
                "sent_count": sent_count,
                "reputation": reputation,
                "created_at": created_at,
                "verified_at": verified_at,
                "shared_with_company": shared_with_company,
                "shared_external": shared_external,
                "owner_workspace_name": owner_workspace_name,
                "external_accounts": external_accounts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.domain_record_view import DomainRecordView  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        domain = d.pop("domain")

        status = DomainStatus(d.pop("status"))

        spf = d.pop("spf")

        dkim = d.pop("dkim")

        dmarc = d.pop("dmarc")

        def _parse_region(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        region = _parse_region(d.pop("region"))

        def _parse_dkim_selector(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        dkim_selector = _parse_dkim_selector(d.pop("dkim_selector"))

        def _parse_tracking_subdomain(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tracking_subdomain = _parse_tracking_subdomain(d.pop("tracking_subdomain"))

        dns_records = []
        _dns_records = d.pop("dns_records")
        for dns_records_item_data in _dns_records:
            dns_records_item = DomainRecordView.from_dict(dns_records_item_data)

            dns_records.append(dns_records_item)

        sent_count = d.pop("sent_count")

        def _parse_reputation(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        reputation = _parse_reputation(d.pop("reputation"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_verified_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verified_at_type_0 = datetime.datetime.fromisoformat(data)

                return verified_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        verified_at = _parse_verified_at(d.pop("verified_at"))

        shared_with_company = d.pop("shared_with_company")

        shared_external = d.pop("shared_external")

        def _parse_owner_workspace_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        owner_workspace_name = _parse_owner_workspace_name(d.pop("owner_workspace_name"))

        def _parse_external_accounts(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                external_accounts_type_0 = cast(list[str], data)

                return external_accounts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        external_accounts = _parse_external_accounts(d.pop("external_accounts"))

        domain = cls(
            id=id,
            domain=domain,
            status=status,
            spf=spf,
            dkim=dkim,
            dmarc=dmarc,
            region=region,
            dkim_selector=dkim_selector,
            tracking_subdomain=tracking_subdomain,
            dns_records=dns_records,
            sent_count=sent_count,
            reputation=reputation,
            created_at=created_at,
            verified_at=verified_at,
            shared_with_company=shared_with_company,
            shared_external=shared_external,
            owner_workspace_name=owner_workspace_name,
            external_accounts=external_accounts,
        )

        domain.additional_properties = d
        return domain

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
