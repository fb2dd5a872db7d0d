"""In-memory fakes of the signing_keys area's port (`postline/signing_keys/ports.py`): the signer."""

from __future__ import annotations

from datetime import datetime


class FixedSigner:
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        return "kid", b"signature"
