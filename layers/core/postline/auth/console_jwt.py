"""Console JWTs: the dashboard's bearer tokens, verified against a configured JSON Web Key Set."""

from __future__ import annotations

import logging
from typing import Any

import jwt

logger = logging.getLogger(__name__)

ASYMMETRIC = ["EdDSA", "ES256", "RS256"]  # never HS*: a public JWKS must not double as a shared secret


class JwksTokenVerifier:
    def __init__(self, jwks_json: str, *, audience: str, issuer: str = "") -> None:
        self._keys = jwt.PyJWKSet.from_json(jwks_json) if jwks_json.strip() else None
        self._audience = audience
        self._issuer = issuer or None

    def verify(self, token: str) -> dict[str, Any] | None:
        if self._keys is None or token.count(".") != 2:
            return None
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            signing_key = next((k for k in self._keys.keys if k.key_id == kid), None)
            if signing_key is None:
                return None
            claims: dict[str, Any] = jwt.decode(
                token,
                key=signing_key.key,
                algorithms=ASYMMETRIC,
                audience=self._audience,
                issuer=self._issuer,
                options={"require": ["exp", "aud", "sub"]},
            )
        except jwt.PyJWTError as exc:
            logger.info("console token refused: %s", exc)
            return None
        return claims
