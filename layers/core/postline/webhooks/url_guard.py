"""Where webhooks may go: the URL's shape (webhooks/domain.py), then the outbound address policy every
outbound path applies (postline/egress/guard.py): unless private addresses are allowed, every address
the host resolves to must be public, and only https.

`vet` also returns the addresses it checked, so the HTTP client connects to exactly those: a
second resolution at connect time could answer differently (DNS rebinding)."""

from __future__ import annotations

from postline.egress.addresses import address_refusal, literal_address
from postline.egress.guard import EgressGuard, EgressRefused, Resolve, system_resolve
from postline.shared.errors import ValidationFailed
from postline.webhooks.domain import url_target


class ResolvingUrlGuard:
    def __init__(self, *, allow_private: bool, resolve: Resolve = system_resolve) -> None:
        self._egress = EgressGuard(allow_private=allow_private, resolve=resolve)

    def check(self, url: str) -> None:
        self.vet(url)

    def check_without_dns(self, url: str) -> None:
        """What can be refused without a lookup (shape, scheme, a private IP literal in any notation):
        for a message's webhook_url, checked on the send path where a DNS lookup would cost every send.
        Names are resolved and checked at each attempt."""
        try:
            target = url_target(url)
        except ValueError as exc:
            raise ValidationFailed(f"webhook_url: {exc}.") from exc
        if self._egress.allow_private:
            return
        if target.scheme != "https":
            raise ValidationFailed("webhook_url: webhooks must use https://.")
        literal = literal_address(target.host)
        reason = address_refusal(literal) if literal is not None else None
        if reason:
            raise ValidationFailed(
                f"webhook_url: {literal} is a {reason} address; webhooks go to public addresses only."
            )

    def vet(self, url: str) -> list[str]:
        """The addresses a request to `url` may connect to, all public; [] when private URLs are
        allowed (connect by name). Raises ValidationFailed when the URL must not be called."""
        try:
            target = url_target(url)
        except ValueError as exc:
            raise ValidationFailed(f"Invalid webhook URL: {exc}.") from exc
        if self._egress.allow_private:
            return []
        if target.scheme != "https":
            raise ValidationFailed("Webhook URLs must use https://.")
        try:
            addresses = self._egress.addresses(target.host, target.port)
        except EgressRefused as refused:
            raise ValidationFailed(
                f"The webhook host {target.host} resolves to {refused.address}, a {refused.reason} address; "
                "webhooks go to public addresses only."
            ) from None
        if not addresses:
            raise ValidationFailed(f"The webhook host {target.host} does not resolve.")
        return addresses
