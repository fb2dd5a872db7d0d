"""A pool's counterpart in SES (the SES transport): an SES dedicated IP pool and a configuration set
that sends through it, its events going where the deployment's configuration set sends its own (the
feedback topic: SNS -> the feedback queue), so bounces and complaints of a pool's mail are read as
any other's.

Names derive from the pool's id (`postline-<id>`), so a retried create makes nothing twice and a
delete finds them without a lookup. With the SMTP transport nothing is made: the relay binds the
pool's addresses instead (delivery/transports/smtp.py).
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from postline.ip_pools.domain import Pool, Scaling

PREFIX = "postline-"
# What SES reports to the feedback queue (delivery/feedback.py reads these).
EVENT_TYPES = ["DELIVERY", "BOUNCE", "COMPLAINT", "DELIVERY_DELAY", "REJECT"]
EVENT_DESTINATION = "feedback"


def ses_name(pool: Pool) -> str:
    return f"{PREFIX}{pool.id}"


class SesDedicatedPools:
    def __init__(self, sesv2: Any, *, enabled: bool, feedback_topic_arn: str) -> None:
        self._ses = sesv2
        self._enabled = enabled
        self._topic = feedback_topic_arn

    def provision(self, pool: Pool) -> str | None:
        if not self._enabled:
            return None
        name = ses_name(pool)
        mode = "MANAGED" if pool.scaling is Scaling.MANAGED else "STANDARD"
        _unless_exists(lambda: self._ses.create_dedicated_ip_pool(PoolName=name, ScalingMode=mode))
        _unless_exists(
            lambda: self._ses.create_configuration_set(
                ConfigurationSetName=name, DeliveryOptions={"SendingPoolName": name}
            )
        )
        if self._topic:
            destination = {
                "Enabled": True,
                "MatchingEventTypes": EVENT_TYPES,
                "SnsDestination": {"TopicArn": self._topic},
            }
            _unless_exists(
                lambda: self._ses.create_configuration_set_event_destination(
                    ConfigurationSetName=name, EventDestinationName=EVENT_DESTINATION, EventDestination=destination
                )
            )
        return name

    def retire(self, pool: Pool) -> None:
        if pool.ses_configuration_set is None:
            return
        name = pool.ses_configuration_set
        _unless_missing(lambda: self._ses.delete_configuration_set(ConfigurationSetName=name))
        _unless_missing(lambda: self._ses.delete_dedicated_ip_pool(PoolName=name))


def _unless_exists(call: Any) -> None:
    try:
        call()
    except ClientError as error:
        if error.response["Error"]["Code"] != "AlreadyExistsException":
            raise


def _unless_missing(call: Any) -> None:
    try:
        call()
    except ClientError as error:
        if error.response["Error"]["Code"] != "NotFoundException":
            raise
