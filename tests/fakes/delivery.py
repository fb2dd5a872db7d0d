"""In-memory fakes of the delivery area's port (`postline/delivery/ports.py`): the transport."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from postline.delivery.outcomes import Outcome, OutcomeKind
from postline.delivery.parcel import Parcel

if TYPE_CHECKING:
    from postline.delivery.ports import Transport


class ScriptedTransport:
    """Answers each recipient by the script (default: delivered), remembering every hand-over."""

    def __init__(self, script: dict[str, Outcome] | None = None) -> None:
        self.script = script or {}
        self.handed: list[str] = []

    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            self.handed.append(parcel.recipient)
            yield self.script.get(parcel.recipient, Outcome(OutcomeKind.DELIVERED, smtp_response="250 ok"))


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _transport: Transport = ScriptedTransport()
