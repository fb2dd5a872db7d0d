"""Identifiers and secrets: random, URL-safe, readable."""

from __future__ import annotations

import hashlib
import secrets
import string
import time
import uuid

_ALPHABET = string.ascii_letters + string.digits  # base62: no '-' or '_', so a double-click selects it


class RandomIds:
    def new_id(self, prefix: str = "") -> str:
        """Prefixed ids sort roughly by creation (millisecond time, then randomness); bare ids are UUIDs."""
        if not prefix:
            return str(uuid.uuid4())
        millis = int(time.time() * 1000)
        return f"{prefix}{millis:012x}{secrets.token_hex(8)}"

    def secret(self, nbytes: int) -> str:
        return "".join(secrets.choice(_ALPHABET) for _ in range(nbytes))


def keyed_id(prefix: str, *names: str) -> str:
    """An id derived from what names it (account, environment, use case, Idempotency-Key, recipient
    index), in the shape of a random one: a retry of a request cut off mid-commit names the same
    messages, so it can tell what the first try stored and store only the rest."""
    digest = hashlib.sha256("\x1f".join(names).encode()).hexdigest()
    return f"{prefix}{digest[:28]}"
