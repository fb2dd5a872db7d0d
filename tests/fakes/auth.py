"""In-memory fakes of the auth area's port (`postline/auth/ports.py`): the console token verifier."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from postline.auth.ports import ConsoleTokenVerifier


class FakeConsoleVerifier:
    """Console JWTs without cryptography: `issue` hands out opaque tokens mapped to claims."""

    def __init__(self) -> None:
        self._tokens: dict[str, dict[str, Any]] = {}
        self.verified: list[str] = []

    def issue(self, claims: dict[str, Any]) -> str:
        token = f"console.{len(self._tokens) + 1:04d}.sig"
        self._tokens[token] = dict(claims)
        return token

    def verify(self, token: str) -> dict[str, Any] | None:
        self.verified.append(token)
        claims = self._tokens.get(token)
        return dict(claims) if claims is not None else None


# Each fake as the port it stands in for (tests/fakes/__init__.py): mypy fails here when one drifts.
if TYPE_CHECKING:
    _console: ConsoleTokenVerifier = FakeConsoleVerifier()
