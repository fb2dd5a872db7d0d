"""Keyed hashing of API key secrets with a pepper held in Secrets Manager."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable


class PepperedHasher:
    """HMAC-SHA256 under a server-side pepper: a leaked table alone cannot test guesses offline."""

    def __init__(self, pepper: Callable[[], str]) -> None:
        self._pepper = pepper  # fetched lazily (and cached by Powertools parameters)

    def hash(self, secret: str) -> str:
        return hmac.new(self._pepper().encode(), secret.encode(), hashlib.sha256).hexdigest()
