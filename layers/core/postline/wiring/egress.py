"""The egress area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Egress
from postline.wiring.registry import settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.egress.models import EgressAddresses


def egress_addresses() -> EgressAddresses:
    """GET /.well-known/svc/egress: the static source address of relayed mail and webhook calls."""
    from postline.egress.models import egress_addresses as view

    return view(settings(Egress).ip)
