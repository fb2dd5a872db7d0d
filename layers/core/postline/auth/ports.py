"""API request and response models."""

from __future__ import annotations

from typing import Any, Protocol


class ConsoleTokenVerifier(Protocol):
    def verify(self, token: str) -> dict[str, Any] | None:
        """Claims of a valid console JWT (signature, expiry, audience checked), else None."""
        ...
