"""In-memory fakes of the signing_keys area's port (`postline/signing_keys/ports.py`): the signer."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from postline.signing_keys.ports import Signer


class FixedSigner:
    def sign(self, content: bytes, now: datetime) -> tuple[str, bytes]:
        return "kid", b"signature"


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _signer: Signer = FixedSigner()
