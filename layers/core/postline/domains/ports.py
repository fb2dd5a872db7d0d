"""What sending and delivery need from sending domains.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from typing import Protocol

from postline.domains.domain import SendingDomain


class SendingDomains(Protocol):
    def is_verified(self, account_id: str, domain: str) -> bool: ...

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        """The account's verified sending domain of that name, with its DKIM key; None otherwise."""
        ...
