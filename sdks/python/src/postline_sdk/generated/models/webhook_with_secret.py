from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.disabled_reason import DisabledReason
from ..models.event_type import EventType
from ..models.webhook_with_secret_status import WebhookWithSecretStatus
from typing import cast
import datetime

if TYPE_CHECKING:
    from ..models.basic_auth_view import BasicAuthView
    from ..models.bearer_auth_view import BearerAuthView
    from ..models.custom_headers_auth_view import CustomHeadersAuthView
    from ..models.hmac_auth_view import HmacAuthView
    from ..models.mtls_auth_view import MtlsAuthView
    from ..models.o_auth_2_auth_view import OAuth2AuthView


T = TypeVar("T", bound="WebhookWithSecret")


@_attrs_define
class WebhookWithSecret:
    """
    Attributes:
        id (str):
        url (str):
        events (list[EventType]):
        description (None | str):
        enabled (bool):
        status (WebhookWithSecretStatus):
        disabled_reason (DisabledReason | None):
        disabled_at (datetime.datetime | None):
        auth (BasicAuthView | BearerAuthView | CustomHeadersAuthView | HmacAuthView | MtlsAuthView | None |
            OAuth2AuthView):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        secret (None | str): The new hmac signing secret, shown only in this reply; null when none was generated.
    """

    id: str
    url: str
    events: list[EventType]
    description: None | str
    enabled: bool
    status: WebhookWithSecretStatus
    disabled_reason: DisabledReason | None
    disabled_at: datetime.datetime | None
    auth: BasicAuthView | BearerAuthView | CustomHeadersAuthView | HmacAuthView | MtlsAuthView | None | OAuth2AuthView
    created_at: datetime.datetime
    updated_at: datetime.datetime
    secret: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.basic_auth_view import BasicAuthView  # noqa: PLC0415
        from ..models.bearer_auth_view import BearerAuthView  # noqa: PLC0415
        from ..models.custom_headers_auth_view import CustomHeadersAuthView  # noqa: PLC0415
        from ..models.hmac_auth_view import HmacAuthView  # noqa: PLC0415
        from ..models.mtls_auth_view import MtlsAuthView  # noqa: PLC0415
        from ..models.o_auth_2_auth_view import OAuth2AuthView  # noqa: PLC0415

        id = self.id

        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        description: None | str
        description = self.description

        enabled = self.enabled

        status = self.status.value

        disabled_reason: None | str
        if isinstance(self.disabled_reason, DisabledReason):
            disabled_reason = self.disabled_reason.value
        else:
            disabled_reason = self.disabled_reason

        disabled_at: None | str
        if isinstance(self.disabled_at, datetime.datetime):
            disabled_at = self.disabled_at.isoformat()
        else:
            disabled_at = self.disabled_at

        auth: dict[str, Any] | None
        if isinstance(self.auth, HmacAuthView):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, BearerAuthView):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, BasicAuthView):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, CustomHeadersAuthView):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, OAuth2AuthView):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, MtlsAuthView):
            auth = self.auth.to_dict()
        else:
            auth = self.auth

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        secret: None | str
        secret = self.secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "url": url,
                "events": events,
                "description": description,
                "enabled": enabled,
                "status": status,
                "disabled_reason": disabled_reason,
                "disabled_at": disabled_at,
                "auth": auth,
                "created_at": created_at,
                "updated_at": updated_at,
                "secret": secret,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.basic_auth_view import BasicAuthView  # noqa: PLC0415
        from ..models.bearer_auth_view import BearerAuthView  # noqa: PLC0415
        from ..models.custom_headers_auth_view import CustomHeadersAuthView  # noqa: PLC0415
        from ..models.hmac_auth_view import HmacAuthView  # noqa: PLC0415
        from ..models.mtls_auth_view import MtlsAuthView  # noqa: PLC0415
        from ..models.o_auth_2_auth_view import OAuth2AuthView  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = EventType(events_item_data)

            events.append(events_item)

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        enabled = d.pop("enabled")

        status = WebhookWithSecretStatus(d.pop("status"))

        def _parse_disabled_reason(data: object) -> DisabledReason | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                disabled_reason_type_0 = DisabledReason(data)

                return disabled_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DisabledReason | None, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason"))

        def _parse_disabled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                disabled_at_type_0 = datetime.datetime.fromisoformat(data)

                return disabled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        disabled_at = _parse_disabled_at(d.pop("disabled_at"))

        def _parse_auth(
            data: object,
        ) -> (
            BasicAuthView | BearerAuthView | CustomHeadersAuthView | HmacAuthView | MtlsAuthView | None | OAuth2AuthView
        ):
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_0 = HmacAuthView.from_dict(data)

                return auth_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_1 = BearerAuthView.from_dict(data)

                return auth_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_2 = BasicAuthView.from_dict(data)

                return auth_type_0_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_3 = CustomHeadersAuthView.from_dict(data)

                return auth_type_0_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_4 = OAuth2AuthView.from_dict(data)

                return auth_type_0_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_5 = MtlsAuthView.from_dict(data)

                return auth_type_0_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                BasicAuthView
                | BearerAuthView
                | CustomHeadersAuthView
                | HmacAuthView
                | MtlsAuthView
                | None
                | OAuth2AuthView,
                data,
            )

        auth = _parse_auth(d.pop("auth"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_secret(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        secret = _parse_secret(d.pop("secret"))

        webhook_with_secret = cls(
            id=id,
            url=url,
            events=events,
            description=description,
            enabled=enabled,
            status=status,
            disabled_reason=disabled_reason,
            disabled_at=disabled_at,
            auth=auth,
            created_at=created_at,
            updated_at=updated_at,
            secret=secret,
        )

        webhook_with_secret.additional_properties = d
        return webhook_with_secret

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
