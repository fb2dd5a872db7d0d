"""What address verification needs from DNS.

Adapters implement these; tests pass fakes.
"""

from __future__ import annotations

from typing import Protocol

from postline.verification.domain import MailRoute


class MailRoutes(Protocol):
    def route(self, domain: str) -> MailRoute:
        """Where the domain's mail goes, as DNS says (a DNS failure is a route with lookup_error)."""
        ...
