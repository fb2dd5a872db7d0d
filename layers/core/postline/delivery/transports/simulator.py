"""Test keys' transport: nothing leaves the machine; outcomes come from domain.delivery.simulate."""

from __future__ import annotations

from collections.abc import Iterator

from postline.delivery.outcomes import Outcome, simulate
from postline.delivery.parcel import Parcel


class SimulatorTransport:
    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        for parcel in parcels:
            yield simulate(parcel.message_id, parcel.recipient, parcel.send_outcomes, parcel.attempt)
