"""Sending domains as SES identities, where SES sends: Bring Your Own DKIM (SESv2), so SES signs
with the same key and selector the domain publishes, and SES's view of that DKIM record counts."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from postline.domains.domain import SendingDomain

DKIM_OK = "SUCCESS"


def _key_body(pem: str) -> str:
    """SES takes the private key as base64 DER: the PEM without its armour lines."""
    return "".join(line for line in pem.strip().splitlines() if not line.startswith("-----"))


class SesIdentities:
    def __init__(self, sesv2: Any) -> None:
        self._ses = sesv2

    def dkim_verified(self, domain: SendingDomain) -> bool:
        """Whether SES found the domain's DKIM record; creates the identity first if it has none
        (a create that failed, or a domain added while another transport sent)."""
        try:
            identity = self._ses.get_email_identity(EmailIdentity=domain.domain)
        except ClientError as error:
            if error.response["Error"]["Code"] != "NotFoundException":
                raise
            identity = self._ses.create_email_identity(
                EmailIdentity=domain.domain, DkimSigningAttributes=self._signing(domain)
            )
        return bool(identity.get("DkimAttributes", {}).get("Status") == DKIM_OK)

    def signing_key_changed(self, domain: SendingDomain) -> None:
        """A rotation moved signing to the next key: SES signs with it too."""
        self._ses.put_email_identity_dkim_signing_attributes(
            EmailIdentity=domain.domain, SigningAttributesOrigin="EXTERNAL", SigningAttributes=self._signing(domain)
        )

    def delete(self, domain: SendingDomain) -> None:
        try:
            self._ses.delete_email_identity(EmailIdentity=domain.domain)
        except ClientError as error:
            if error.response["Error"]["Code"] != "NotFoundException":
                raise

    @staticmethod
    def _signing(domain: SendingDomain) -> dict[str, str]:
        return {
            "DomainSigningSelector": domain.dkim_selector,
            "DomainSigningPrivateKey": _key_body(domain.dkim_private_key),
        }
