"""What the dispatcher hands parcels to.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from datetime import date

    from postline.delivery.outcomes import Outcome
    from postline.delivery.parcel import Parcel
    from postline.delivery.tls_sessions import TlsSession
    from postline.ip_pools.domain import Source


class Transport(Protocol):
    def deliver(self, parcels: list[Parcel]) -> Iterator[Outcome]:
        """Hands each parcel to the next hop; one outcome per parcel, in order."""
        ...


class TlsSessions(Protocol):
    def record(self, session: TlsSession) -> None:
        """Counts one SMTP session's TLS outcome; never raises (a delivery does not fail on it)."""
        ...


class ConfigurationSetPools(Protocol):
    """Which IP pool an SES configuration set sends through (ip_pools/service.py SourcePicker)."""

    def pool_of_configuration_set(self, account_id: str, name: str) -> str | None:
        """The account's pool whose configuration set is `name`; None for any other set."""
        ...


class SourceAddresses(Protocol):
    """Which IP pool and source address a copy leaves from (ip_pools/service.py SourcePicker)."""

    def pick(
        self, account_id: str, reference: str | None, key: str, today: date, *, simulated: bool = False
    ) -> Source | None:
        """The pool `reference` names (id or name; None: the shared platform pool) and one of its
        addresses chosen by `key`, or the shared pool's past a warming pool's cap for `today`; None:
        no pool holds an address (the host's own address). `simulated`: a test copy's, named on its
        events only: it spends nothing of a warming pool's day."""
        ...
