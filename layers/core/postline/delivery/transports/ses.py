"""Amazon SES (SESv2 raw send): SES signs (Easy DKIM) and reports delivery, bounces and complaints
later through the configuration set's event destination (SNS -> the feedback queue)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError

from postline.delivery.outcomes import BounceType, Outcome, OutcomeKind
from postline.delivery.parcel import MESSAGE_TAG, Parcel

_TEMPORARY = {"TooManyRequestsException", "LimitExceededException", "ThrottlingException", "ServiceUnavailable"}


class SesTransport:
    def __init__(self, sesv2: Any, configuration_set: str | None) -> None:
        self._ses = sesv2
        self._configuration_set = configuration_set

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            yield self._send(parcel)

    def _send(self, parcel: Parcel) -> Outcome:
        request: dict[str, Any] = {
            "FromEmailAddress": parcel.sender,
            "Destination": {"ToAddresses": [parcel.recipient]},
            "Content": {"Raw": {"Data": parcel.mime}},
            "EmailTags": [{"Name": MESSAGE_TAG, "Value": parcel.message_id}],
        }
        # A pool's own configuration set sends through its SES dedicated IP pool (ip_pools/ses.py).
        configuration_set = parcel.ses_configuration_set or self._configuration_set
        if configuration_set:
            request["ConfigurationSetName"] = configuration_set
        try:
            response = self._ses.send_email(**request)
        except ClientError as error:
            code = error.response["Error"]["Code"]
            message = error.response["Error"].get("Message", code)
            if code in _TEMPORARY:
                return Outcome(OutcomeKind.DEFERRED, reason=f"SES: {message}")
            return Outcome(OutcomeKind.BOUNCED, bounce_type=BounceType.HARD, reason=f"SES rejected it: {message}")
        return Outcome(OutcomeKind.ACCEPTED, provider_id=response["MessageId"])
