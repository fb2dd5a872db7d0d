"""The delivery area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import Dns, Outbound, RelayQueue, RelaySources
from postline.wiring import (
    accounts,
    content_checks,
    domains,
    ip_pools,
    sending,
    shared,
    suppressions,
    tlsrpt,
    tracking,
    usage,
)
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.delivery.feedback import FeedbackService
    from postline.delivery.ports import Transport
    from postline.delivery.service import Dispatcher
    from postline.sending.domain import Message
    from postline.sending.queue import SqsDispatchQueue


@built_once()
def transports() -> dict[str, Transport]:
    from postline.delivery.mta_sts import HttpsPolicyFetcher, MtaStsPolicies
    from postline.delivery.transports.ses import SesTransport
    from postline.delivery.transports.simulator import SimulatorTransport
    from postline.delivery.transports.smtp import Relay, SmtpTransport
    from postline.shared.resolver import dns_resolver

    outbound = settings(Outbound)
    resolver = shared.mx_resolver()
    return {
        "test": SimulatorTransport(),
        "smtp": SmtpTransport(
            relay=Relay.parse(outbound.smtp_relay),
            resolver=resolver,
            egress=shared.egress_guard(),
            mx_port=outbound.smtp_mx_port,
            helo_name=outbound.smtp_helo_name,
            # Recipient domains' MTA-STS policies (RFC 8461), cached for the relay task's life.
            mta_sts=MtaStsPolicies(
                dns_resolver(settings(Dns).resolver, 5.0), HttpsPolicyFetcher(shared.egress_guard())
            ),
            # Each MX session's TLS outcome, counted for the domains' TLS-RPT reports (RFC 8460).
            tls_sessions=tlsrpt.tls_sessions(),
            local_address=local_address,
        ),
        "ses": SesTransport(client("sesv2"), outbound.ses_configuration_set or None),
    }


def local_address(source: str) -> str:
    """The address the relay binds for a pool's `source` address (RelaySources): read when a copy names
    one, which only the relay task delivers (the dispatcher hands live SMTP copies over)."""
    return settings(RelaySources).bindings().get(source, source)


def transport_for(message: Message) -> Transport:
    """Test messages never leave the machine; live ones take the configured transport."""
    return transports()["test" if message.test else settings(Outbound).transport]


@built_once()
def relay_queue() -> SqsDispatchQueue:
    """The relay task's queue, for hand-overs (immediate: never a delay, so never a schedule)."""
    from postline.sending.queue import SqsDispatchQueue

    relay = settings(RelayQueue)
    return SqsDispatchQueue(shared.delayed_queue(relay.url, relay.arn))


def dispatcher(worker_id: str, *, hand_over: bool = True) -> Dispatcher:
    """The dispatcher Lambda's (hand_over: live SMTP jobs go to the relay task) or the relay task's
    (hand_over=False: it delivers them itself, postline/relay)."""
    from postline.delivery.service import Dispatcher
    from postline.verification.service import Verifier

    relay = relay_queue() if hand_over and settings(Outbound).transport == "smtp" else None

    return Dispatcher(
        messages=sending.message_store(),
        vault=sending.vault(),
        queue=sending.dispatch_queue(),
        domains=domains.accepted_domains(),
        suppressions=suppressions.suppressions(),
        transport_for=transport_for,
        verifier=Verifier(shared.mx_resolver()),
        links=tracking.links(),
        retention_days=accounts.retention_days,
        quotas=usage.pooled_quotas(),
        clock=clock(),
        meter=shared.meter(),
        worker_id=worker_id,
        relay=relay,
        checker=content_checks.checker(),  # test-mode copies: kept and checked
        copies=content_checks.kept_copies(),
        # IP pools bind source addresses on the SMTP transport (the relay task's role may count the
        # warm-up); with SES a pool's copies go through its configuration set, SES picking the address.
        sources=ip_pools.source_picker() if settings(Outbound).transport == "smtp" else ip_pools.ses_source_picker(),
    )


def feedback_service() -> FeedbackService:
    from postline.delivery.feedback import FeedbackService

    return FeedbackService(
        pools=ip_pools.ses_source_picker(),  # SES's reports name the pool's configuration set
        messages=sending.message_store(),
        suppressions=suppressions.suppressions(),
        retention_days=accounts.retention_days,
        meter=shared.meter(),
    )
