"""Where webhooks may go: the URL's shape, then (unless private URLs are allowed) every address its
host resolves to must be public. Classification is the domain's; this adds the resolution.

`vet` also returns the addresses it checked, so the HTTP client connects to exactly those: a
second resolution at connect time could answer differently (DNS rebinding)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable

from postline.shared.errors import ValidationFailed
from postline.webhooks.domain import address_refusal, url_target

Resolve = Callable[[str, int], list[str]]


def system_resolve(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for host (IPv4 and IPv6), without zone ids."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]).split("%", 1)[0] for info in infos})


class ResolvingUrlGuard:
    def __init__(self, *, allow_private: bool, resolve: Resolve = system_resolve) -> None:
        self._allow_private = allow_private
        self._resolve = resolve

    def check(self, url: str) -> None:
        self.vet(url)

    def check_without_dns(self, url: str) -> None:
        """What can be refused without a lookup (shape, scheme, a private IP literal): for a
        message's webhook_url, checked on the send path where a DNS lookup would cost every send.
        Names are resolved and checked at each attempt."""
        try:
            target = url_target(url)
        except ValueError as exc:
            raise ValidationFailed(f"webhook_url: {exc}.") from exc
        if self._allow_private:
            return
        if target.scheme != "https":
            raise ValidationFailed("webhook_url: webhooks must use https://.")
        try:
            address = str(ipaddress.ip_address(target.host))
        except ValueError:
            return
        reason = address_refusal(address)
        if reason:
            raise ValidationFailed(
                f"webhook_url: {address} is a {reason} address; webhooks go to public addresses only."
            )

    def vet(self, url: str) -> list[str]:
        """The addresses a request to `url` may connect to, all public; [] when private URLs are
        allowed (connect by name). Raises ValidationFailed when the URL must not be called."""
        try:
            target = url_target(url)
        except ValueError as exc:
            raise ValidationFailed(f"Invalid webhook URL: {exc}.") from exc
        if self._allow_private:
            return []
        if target.scheme != "https":
            raise ValidationFailed("Webhook URLs must use https://.")
        try:
            addresses = [str(ipaddress.ip_address(target.host))]
        except ValueError:
            try:  # a name, or an IPv4 literal in another notation (0x7f.1, 2130706433) the resolver reads
                addresses = self._resolve(target.host, target.port)
            except (OSError, UnicodeError) as exc:
                raise ValidationFailed(f"The webhook host {target.host} does not resolve.") from exc
        if not addresses:
            raise ValidationFailed(f"The webhook host {target.host} does not resolve.")
        for address in addresses:
            reason = address_refusal(address)
            if reason:
                raise ValidationFailed(
                    f"The webhook host {target.host} resolves to {address}, a {reason} address; "
                    "webhooks go to public addresses only."
                )
        return addresses
