"""Sending domains as SES identities (moto's SESv2): Bring Your Own DKIM with the domain's key and
selector, SES's DKIM verdict, deletion. A rotated key's PutEmailIdentityDkimSigningAttributes is not
in moto 5.2.5: the unit tests check the service asks for it."""

from __future__ import annotations

from datetime import UTC, datetime

from postline.domains.dkim_keys import RsaDkimKeys
from postline.domains.domain import DomainStatus, SendingDomain
from postline.domains.ses import SesIdentities
from tests.aws_stack import InProcessStack


def domain(name: str) -> SendingDomain:
    private_key, public_key = RsaDkimKeys().new_key()
    return SendingDomain(
        account_id="acct",
        id="dom_1",
        created_at=datetime.now(UTC),
        domain=name,
        status=DomainStatus.PENDING,
        dkim_selector="pl202611",
        dkim_private_key=private_key,
        dkim_public_key=public_key,
    )


def test_the_identity_is_made_with_the_domains_own_dkim_key_and_deleted(stack: InProcessStack) -> None:
    ses = stack.client("sesv2")
    identities = SesIdentities(ses)
    acme = domain("identities.example")
    assert identities.dkim_verified(acme) is True  # moto reports DKIM verified at once
    identity = ses.get_email_identity(EmailIdentity="identities.example")
    assert identity["IdentityType"] == "DOMAIN"
    assert identities.dkim_verified(acme) is True  # an existing identity is read, not made again
    identities.delete(acme)
    identities.delete(acme)  # gone already: nothing to do
    assert "identities.example" not in [i["IdentityName"] for i in ses.list_email_identities()["EmailIdentities"]]
