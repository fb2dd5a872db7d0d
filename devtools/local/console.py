"""The console at /console: its built files (console/dist), and a local issuer of console JWTs.

In the cloud the console's tokens come from a Cognito user pool; on this machine from a key made at
each start, whose public half the runtime adds to the ConsoleJwks parameter, so the API verifies
them exactly as it verifies the pool's. Sign-in is a one-time link printed at start (as Jupyter's):

    GET  /console/#signin=<code>      the console posts the code from the fragment (kept out of logs)
    POST /console/session             {"code": ...} -> {"token", "env", "expires_at"}; the code is spent
    POST /console/session/switch      Bearer <console token>, {"env": "test"|"live"} -> a token for it
    GET  /console/config.json         where the API is and who signs in (written at deploy in the cloud)

The token carries the environment (`env` claim): the header's test/live switch asks for another one.
"""

from __future__ import annotations

import json
import mimetypes
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from werkzeug.utils import redirect
from werkzeug.wrappers import Request, Response

from devtools.local.responses import error_response, json_response

PREFIX = "/console"
TOKEN_SECONDS = 12 * 3600
DEFAULT_ENV = "test"  # a new session starts where nothing reaches real recipients
ENVIRONMENTS = ("test", "live")
LOCAL_ISSUER = "postline-local"
LOCAL_USER = "local-developer"
NOT_BUILT = (
    "The console is not built. `make run` builds it (npm ci and vite build in console/); "
    "or run `make console` and reload.\n"
)


class LocalConsole:
    """The WSGI side of /console and the local issuer; thread-safe (the gateway serves in threads)."""

    def __init__(self, dist: Path) -> None:
        self._dist = dist
        self._key = Ed25519PrivateKey.generate()
        self._kid = f"local-console-{secrets.token_hex(4)}"
        self._codes: set[str] = set()
        self._lock = threading.Lock()
        self._account_id: str | None = None
        self._audience = ""
        self._issuer = LOCAL_ISSUER

    # -- the issuer ------------------------------------------------------------------------

    def jwk(self) -> dict[str, Any]:
        public: dict[str, Any] = json.loads(jwt.algorithms.OKPAlgorithm.to_jwk(self._key.public_key()))
        return {**public, "kid": self._kid, "alg": "EdDSA", "use": "sig"}

    def key_set(self, configured: str) -> str:
        """The ConsoleJwks value: the configured set (a caller's own signers) plus this issuer's key."""
        keys = list(json.loads(configured).get("keys", [])) if configured.strip() else []
        return json.dumps({"keys": [*keys, self.jwk()]})

    def configure(self, account_id: str, *, audience: str, issuer: str) -> None:
        """Whose console this is, and what the API checks a token's aud and iss against."""
        self._account_id = account_id
        self._audience = audience
        self._issuer = issuer or LOCAL_ISSUER

    def sign_in_link(self, base_url: str) -> str:
        """A new link that signs in once."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes.add(code)
        return f"{base_url}{PREFIX}/#signin={code}"

    def mint(self, env: str) -> dict[str, Any]:
        if self._account_id is None:
            raise RuntimeError("the console has no account (configure() first)")
        now = int(time.time())  # PyJWT checks exp against the real clock
        claims = {
            "sub": LOCAL_USER,
            "account_id": self._account_id,
            "env": env,
            "scope": "full_access",
            "aud": self._audience,
            "iss": self._issuer,
            "iat": now,
            "exp": now + TOKEN_SECONDS,
        }
        token = jwt.encode(claims, self._key, algorithm="EdDSA", headers={"kid": self._kid})
        return {"token": token, "env": env, "expires_at": now + TOKEN_SECONDS}

    def _verified(self, token: str) -> dict[str, Any] | None:
        try:
            claims: dict[str, Any] = jwt.decode(
                token, self._key.public_key(), algorithms=["EdDSA"], audience=self._audience, issuer=self._issuer
            )
        except jwt.PyJWTError:
            return None
        return claims

    # -- HTTP ------------------------------------------------------------------------------

    def __call__(self, request: Request) -> Response:
        path = request.path[len(PREFIX) :]
        if path == "":
            return redirect(f"{PREFIX}/", code=308)
        if path == "/session" and request.method == "POST":
            return self._sign_in(request)
        if path == "/session/switch" and request.method == "POST":
            return self._switch(request)
        if path == "/config.json" and request.method == "GET":
            return json_response({"api_base_url": "", "sign_in": "local", "environments": list(ENVIRONMENTS)})
        if request.method not in ("GET", "HEAD"):
            return error_response(405, "method_not_allowed", "The console's files are read-only.")
        return self._file(path)

    def _sign_in(self, request: Request) -> Response:
        body = request.get_json(silent=True)
        code = body.get("code") if isinstance(body, dict) else None
        with self._lock:
            known = isinstance(code, str) and code in self._codes
            if known:
                self._codes.discard(str(code))
        if not known or self._account_id is None:
            return error_response(401, "unauthorized", "This sign-in link was used already or is not this run's.")
        return json_response(self.mint(DEFAULT_ENV))

    def _switch(self, request: Request) -> Response:
        authorization = request.headers.get("Authorization", "")
        token = authorization[7:].strip() if authorization.lower().startswith("bearer ") else ""
        claims = self._verified(token) if token else None
        if claims is None:
            return error_response(401, "unauthorized", "Sign in again: the console token is missing or expired.")
        body = request.get_json(silent=True)
        env = body.get("env") if isinstance(body, dict) else None
        if env not in ENVIRONMENTS:
            return error_response(400, "validation_error", "env must be test or live.")
        return json_response(self.mint(str(env)))

    def _file(self, path: str) -> Response:
        index = self._dist / "index.html"
        if not index.is_file():
            return Response(NOT_BUILT, status=503, mimetype="text/plain")
        root = self._dist.resolve()
        target = (root / path.lstrip("/")).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            target = index  # the single page answers every route of its own
        mimetype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        response = Response(target.read_bytes(), mimetype=mimetype)
        # Hashed assets never change; the page itself is checked each time (a rebuild shows at once).
        immutable = target.parent.name == "assets"
        response.headers["Cache-Control"] = "public, max-age=31536000, immutable" if immutable else "no-cache"
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response


# Everything from this origin. The message preview's iframe (srcdoc, sandboxed: no scripts) inherits
# this policy: its inline styles apply, its remote images and fonts are not fetched.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; frame-src 'self' blob: data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
