"""POSTs webhook bodies to receivers over urllib3, and fetches OAuth2 client-credentials tokens.

- One attempt has ATTEMPT_TIMEOUT_SECONDS in all (connect, send, answer); redirects are not
  followed (a receiver that redirects has not accepted the event).
- A timeout or a connection dropped mid-answer is "cut short" (it earns the interface's +24 h step);
  a refused connection is an ordinary retryable failure.
- WEBHOOK_CA_BUNDLE adds certificate authorities receivers may use (a private CA, the tests' CA).
- mTLS: the client certificate and key go to 0600 files in a private temp directory, one pool
  per certificate (ssl.load_cert_chain only reads files).
- Every request (the receiver's and the token endpoint's) goes through the URL guard first and
  connects to an address the guard vetted, with TLS still checking the URL's host name: the
  name is never resolved a second time, which would leave a DNS rebinding window.
- OAuth2 tokens are cached per endpoint until shortly before they expire on the services' clock
  (the embedded runtime's movable one included); one fetch per endpoint at a time, so attempts
  made together share it.
"""

from __future__ import annotations

import base64
import os
import ssl
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import urllib3
from urllib3.exceptions import HTTPError, NewConnectionError, ProtocolError, ReadTimeoutError, TimeoutError
from urllib3.util import parse_url

from postline.shared.errors import ValidationFailed
from postline.shared.ports import Clock
from postline.shared.tracing import traced
from postline.webhook_delivery.domain import ATTEMPT_TIMEOUT_SECONDS, ClientCertificate, HttpAnswer, TokenError

_ANSWER_LIMIT = 64 * 1024  # bytes of a receiver's answer worth reading
_TOKEN_MARGIN = timedelta(seconds=30)
_USER_AGENT = "Postline-Webhooks/1.0"
Vet = Callable[[str], list[str]]  # the addresses a URL may be reached at ([]: by name); raises ValidationFailed


@dataclass(frozen=True, eq=False)  # compared by identity: each fetch is its own
class _Fetch:
    token: str | None = None
    error: TokenError | None = None

    def outcome(self) -> str:
        if self.error is not None:
            raise self.error
        assert self.token is not None
        return self.token


class WebhookHttp:
    def __init__(
        self, clock: Clock, vet: Vet, *, timeout: float = ATTEMPT_TIMEOUT_SECONDS, ca_bundle: str | None = None
    ) -> None:
        self._clock = clock
        self._vet = vet
        self._timeout = timeout
        self._ca_bundle = ca_bundle
        self._pool = urllib3.PoolManager(num_pools=50, maxsize=10, retries=False, ssl_context=self._context())
        self._mtls_pools: dict[str, urllib3.PoolManager] = {}
        self._tokens: dict[str, tuple[str, datetime]] = {}
        self._fetching: dict[str, threading.Lock] = {}
        self._fetched: dict[str, _Fetch] = {}  # each endpoint's latest fetch, token or error
        self._lock = threading.Lock()
        self._cert_dir: str | None = None

    @traced  # the attempt on the wire (vetting, connection, answer): urllib3 is not patched for X-Ray
    def post(
        self, url: str, body: bytes, headers: dict[str, str], *, certificate: ClientCertificate | None = None
    ) -> HttpAnswer:
        pool = self._pool_for(certificate)
        started = time.monotonic()
        response = None
        try:
            response = self._post(
                pool,
                url,
                body=body,
                headers={"Content-Type": "application/json", "User-Agent": _USER_AGENT, **headers},
                timeout=urllib3.Timeout(total=self._timeout),
                redirect=False,
                preload_content=False,
            )
            response.read(_ANSWER_LIMIT)
            return HttpAnswer(response.status, _elapsed_ms(started))
        except ValidationFailed as exc:
            return HttpAnswer(None, 0, error=f"refused: {exc.message}")
        except NewConnectionError as exc:  # refused or unreachable; in urllib3 a subclass of TimeoutError
            return HttpAnswer(None, _elapsed_ms(started), error=f"connection failed: {exc}")
        except (ReadTimeoutError, TimeoutError) as exc:
            return HttpAnswer(None, _elapsed_ms(started), cut_short=True, error=f"timed out: {type(exc).__name__}")
        except ProtocolError as exc:
            # Connection dropped while the receiver was answering (or before it answered at all).
            return HttpAnswer(None, _elapsed_ms(started), cut_short=True, error=f"connection dropped: {exc}")
        except HTTPError as exc:
            return HttpAnswer(None, _elapsed_ms(started), error=f"{type(exc).__name__}: {exc}")
        finally:
            if response is not None:
                response.release_conn()

    def token(
        self,
        cache_key: str,
        token_url: str,
        client_id: str,
        client_secret: str,
        *,
        scope: str | None = None,
        audience: str | None = None,
        fresh: bool = False,
    ) -> str:
        """A client-credentials access token, cached per endpoint until shortly before it expires.

        One fetch per endpoint at a time, and callers that waited for it take its outcome, a
        TokenError included: N attempts to an endpoint whose token_url hangs cost one timeout,
        not N in a row. Likewise after a 401 (fresh=True): a fetch that ended while this caller
        waited is fresh enough."""
        with self._lock:
            fetching = self._fetching.setdefault(cache_key, threading.Lock())
            before = self._fetched.get(cache_key)
        with fetching:
            latest = self._fetched.get(cache_key)
            if latest is not None and latest is not before:  # fetched while this caller waited
                return latest.outcome()
            cached = self._tokens.get(cache_key)
            if cached and not fresh and cached[1] > self._clock.now():
                return cached[0]
            asked_at = self._clock.now()
            try:
                token, lifetime = self._fetch_token(token_url, client_id, client_secret, scope, audience)
            except TokenError as error:
                self._fetched[cache_key] = _Fetch(error=error)
                raise
            self._tokens[cache_key] = (token, asked_at + max(lifetime - _TOKEN_MARGIN, timedelta()))
            self._fetched[cache_key] = _Fetch(token=token)
            return token

    def _fetch_token(
        self, token_url: str, client_id: str, client_secret: str, scope: str | None, audience: str | None
    ) -> tuple[str, timedelta]:
        fields = {"grant_type": "client_credentials"}
        if scope:
            fields["scope"] = scope
        if audience:
            fields["audience"] = audience
        basic = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()  # RFC 6749 2.3.1
        try:
            response = self._post(
                self._pool,
                token_url,
                body=urlencode(fields),
                headers={
                    "Authorization": f"Basic {basic}",
                    "Accept": "application/json",
                    "Content-Type": "application/x-www-form-urlencoded",
                    "User-Agent": _USER_AGENT,
                },
                timeout=urllib3.Timeout(total=self._timeout),
                redirect=False,
            )
        except ValidationFailed as exc:
            raise TokenError(f"token_url refused: {exc.message}") from exc
        except HTTPError as exc:
            raise TokenError(f"token endpoint unreachable: {type(exc).__name__}") from exc
        if response.status != 200:
            raise TokenError(f"token endpoint answered {response.status}")
        try:
            document: Any = response.json()
            return str(document["access_token"]), timedelta(seconds=float(document.get("expires_in", 300)))
        except (ValueError, KeyError, TypeError) as exc:
            raise TokenError("token endpoint answered without an access_token") from exc

    def _post(
        self, manager: urllib3.PoolManager, url: str, *, headers: dict[str, str], **options: Any
    ) -> urllib3.BaseHTTPResponse:
        """POSTs to an address the guard vetted, TLS verified against the URL's host name.

        IPv4 first (a Lambda outside a VPC has no IPv6 egress); the next address only when a
        connection could not be opened at all, so nothing is ever sent twice."""
        addresses = self._vet(url)
        if not addresses:  # private URLs allowed: nothing to pin
            return manager.request("POST", url, headers=headers, **options)
        target = parse_url(url)  # https with a host: the guard refuses anything else
        name = str(target.host)
        host = name if target.port is None else f"{name}:{target.port}"
        unreachable: NewConnectionError | None = None
        for address in sorted(addresses, key=lambda a: ":" in a):
            pool = manager.connection_from_host(
                address,
                target.port or 443,
                scheme="https",
                pool_kwargs={"server_hostname": name, "assert_hostname": name},
            )
            try:
                return pool.urlopen(
                    "POST", target.request_uri, headers={"Host": host, **headers}, assert_same_host=False, **options
                )
            except NewConnectionError as exc:
                unreachable = exc
        assert unreachable is not None
        raise unreachable

    def _pool_for(self, certificate: ClientCertificate | None) -> urllib3.PoolManager:
        if certificate is None:
            return self._pool
        with self._lock:
            pool = self._mtls_pools.get(certificate.fingerprint)
            if pool is None:
                context = self._context()
                context.load_cert_chain(*self._write(certificate))
                pool = urllib3.PoolManager(num_pools=10, maxsize=4, retries=False, ssl_context=context)
                self._mtls_pools[certificate.fingerprint] = pool
            return pool

    def _context(self) -> ssl.SSLContext:
        """The system's trust store plus WEBHOOK_CA_BUNDLE; a fresh one per pool (mTLS pools add a cert)."""
        context = ssl.create_default_context()
        if self._ca_bundle:
            context.load_verify_locations(cafile=self._ca_bundle)
        return context

    def _write(self, certificate: ClientCertificate) -> tuple[str, str]:
        if self._cert_dir is None:
            self._cert_dir = tempfile.mkdtemp(prefix="postline-mtls-")  # 0700
        paths = []
        for suffix, text in (("crt", certificate.cert_pem), ("key", certificate.key_pem)):
            path = os.path.join(self._cert_dir, f"{certificate.fingerprint}.{suffix}")
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as handle:
                handle.write(text)
            paths.append(path)
        return paths[0], paths[1]


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
