"""The domains area's composition root: its adapters and services, built from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from postline.config import ContentKey, Dns, DomainRecords, Notifications, Outbound, Resources
from postline.wiring import accounts, shared, subaccounts
from postline.wiring.registry import built_once, client, clock, settings

if TYPE_CHECKING:  # adapters and services are imported by the accessors that build them
    from postline.domains.dns import DnsRecordLookup
    from postline.domains.organisation import OrganisationDomains
    from postline.domains.ports import DkimKeys, RecordLookup
    from postline.domains.service import DomainService
    from postline.domains.store import DynamoSendingDomains


@built_once()
def sending_domains() -> DynamoSendingDomains:
    from postline.domains.store import DynamoSendingDomains

    return DynamoSendingDomains(
        client("dynamodb"), settings(Resources).table, client("kms"), settings(ContentKey).key_id
    )


@built_once()
def organisation_domains() -> OrganisationDomains:
    """What sending screens against: the account's own verified domains and those its organisation
    shares with the company or other accounts grant it, these read at once (domains/organisation.py)."""
    from postline.domains.organisation import OrganisationDomains

    return OrganisationDomains(sending_domains(), subaccounts.organisation(), grants=sending_domains())


@built_once()
def accepted_domains() -> OrganisationDomains:
    """What delivery reads: as organisation_domains, but a message
    accepted from a domain its organisation shared still goes signed once it is unshared."""
    from postline.domains.organisation import OrganisationDomains

    return OrganisationDomains(sending_domains(), subaccounts.organisation(), grants=sending_domains(), accepted=True)


@built_once()
def record_lookup() -> DnsRecordLookup:
    from postline.domains.dns import DnsRecordLookup

    return DnsRecordLookup(settings(Dns).resolver)


def domain_service(*, keys: DkimKeys | None = None, lookup: RecordLookup | None = None) -> DomainService:
    """keys, lookup: the embedded runtime's seeded domain keeps its key and checks its own DNS."""
    from postline.delivery.owner_notices import OwnerNotifier
    from postline.delivery.transports.smtp import Relay
    from postline.domains.dkim_keys import RsaDkimKeys
    from postline.domains.domain import DnsSettings
    from postline.domains.service import DomainService
    from postline.domains.ses import SesIdentities

    records, notifications = settings(DomainRecords), settings(Notifications)
    return DomainService(
        domains=sending_domains(),
        lookup=lookup or record_lookup(),
        keys=keys or RsaDkimKeys(),
        notices=OwnerNotifier(
            accounts.account_store(),
            notifications.sender,
            ses=client("sesv2"),
            relay=Relay.parse(notifications.smtp_relay),
        ),
        settings=DnsSettings(
            spf_include=records.spf_include, bounce_mx=records.bounce_mx, tracking_host=records.tracking_host
        ),
        identities=SesIdentities(client("sesv2")) if settings(Outbound).transport == "ses" else None,
        ids=shared.ids(),
        clock=clock(),
        organisation=subaccounts.organisation(),
        reputations=_Reputations(),
    )


class _Reputations:
    """The metrics roll-ups' reputation snapshots (domains/ports.py DomainReputations), built when
    first read: only the domain routes read them (COUNTERS_READ), not the domain checks."""

    def domain_scores(self, account_id: str, mode: str) -> dict[str, int | None]:
        from postline.wiring import metrics

        return metrics.reputations().domain_scores(account_id, mode)
