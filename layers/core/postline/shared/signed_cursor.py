"""Opaque page cursors: base64url JSON plus a keyed hash of it, bound to the query that made them.

A client carries a cursor but cannot edit what it holds (a window, a total, a position), nor use
it with other filters: the fingerprint of the query is inside and must match the next request's.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Callable
from typing import TypeVar

from pydantic import ValidationError

from postline.shared.base import Model
from postline.shared.errors import ValidationFailed

Signer = Callable[[str], str]  # a keyed hash (HMAC) of a string, hex


class BoundCursor(Model):
    fingerprint: str  # identifies the query (account and normalized filters) the cursor continues


CursorT = TypeVar("CursorT", bound=BoundCursor)


def urlsafe_b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def from_urlsafe_b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(purpose: str, payload: str, sign: Signer) -> str:
    return sign(f"{purpose}|{payload}")[:32]


def seal(cursor: BoundCursor, sign: Signer, *, purpose: str) -> str:
    """`purpose` (e.g. "events.cursor.v1") keeps one listing's cursor from passing for another's."""
    payload = urlsafe_b64(cursor.model_dump_json().encode())
    return f"{payload}.{_mac(purpose, payload, sign)}"


def unseal(token: str, model: type[CursorT], sign: Signer, *, purpose: str, fingerprint: str) -> CursorT:
    """The cursor, if it is intact and was made for this very query; else ValidationFailed."""
    payload, _, mac = token.partition(".")
    if not payload or not hmac.compare_digest(mac.encode(), _mac(purpose, payload, sign).encode()):
        raise ValidationFailed("cursor: not a cursor this API returned")
    try:
        cursor = model.model_validate_json(from_urlsafe_b64(payload))
    except (ValidationError, ValueError, binascii.Error) as error:
        raise ValidationFailed("cursor: not a cursor this API returned") from error
    if not hmac.compare_digest(cursor.fingerprint, fingerprint):
        raise ValidationFailed("cursor: it belongs to a query with other filters; repeat the same filters")
    return cursor
