"""Console JWTs: the dashboard's bearer tokens, verified against a JSON Web Key Set.

The key set is given inline (CONSOLE_JWKS: any issuer the operator trusts, the embedded runtime's
local issuer) or fetched from a URL (CONSOLE_JWKS_URL: the deployment's Cognito user pool, whose
keys AWS rotates). PyJWT's PyJWKClient fetches and caches the set, and fetches again when a token
names a key it has not seen (a rotation).
"""

from __future__ import annotations

import logging
from typing import Any

import jwt

logger = logging.getLogger(__name__)

ASYMMETRIC = ["EdDSA", "ES256", "RS256"]  # never HS*: a public JWKS must not double as a shared secret
JWKS_FETCH_TIMEOUT_SECONDS = 5
JWKS_CACHE_SECONDS = 3600
# An unknown kid fetches the set again at most this often: random kids cannot make every request a fetch.
JWKS_REFETCH_COOLDOWN_SECONDS = 30.0


class JwksTokenVerifier:
    def __init__(
        self,
        jwks_json: str,
        *,
        audience: str,
        issuer: str = "",
        jwks_url: str = "",
        refetch_cooldown: float = JWKS_REFETCH_COOLDOWN_SECONDS,
    ) -> None:
        self._keys = jwt.PyJWKSet.from_json(jwks_json) if jwks_json.strip() else None
        self._client = (
            jwt.PyJWKClient(
                jwks_url,
                lifespan=JWKS_CACHE_SECONDS,
                timeout=JWKS_FETCH_TIMEOUT_SECONDS,
                cooldown_duration=refetch_cooldown,
            )
            if jwks_url.strip()
            else None
        )
        # Several audiences: a Cognito pool's app clients (one per environment) are each an `aud`.
        audiences = [part.strip() for part in audience.split(",") if part.strip()]
        self._audience: str | list[str] = audiences if len(audiences) > 1 else audience
        self._issuer = issuer or None

    def verify(self, token: str) -> dict[str, Any] | None:
        if (self._keys is None and self._client is None) or token.count(".") != 2:
            return None
        try:
            signing_key = self._signing_key(token)
            if signing_key is None:
                return None
            claims: dict[str, Any] = jwt.decode(
                token,
                key=signing_key,
                algorithms=ASYMMETRIC,
                audience=self._audience,
                issuer=self._issuer,
                options={"require": ["exp", "aud", "sub"]},
            )
        except jwt.PyJWKClientError as exc:  # the key set could not be fetched, or has no such key
            logger.warning("console token refused: %s", exc)
            return None
        except jwt.PyJWTError as exc:
            logger.info("console token refused: %s", exc)
            return None
        return claims

    def _signing_key(self, token: str) -> Any:
        kid = jwt.get_unverified_header(token).get("kid")
        if self._keys is not None:
            found = next((k for k in self._keys.keys if k.key_id == kid), None)
            if found is not None or self._client is None:
                return found.key if found is not None else None
        assert self._client is not None
        return self._client.get_signing_key_from_jwt(token).key
