"""Who is calling, and may they: bearer key or console JWT, status, allowlist, acting on behalf, rate,
scope, mode.

Order of checks, each failing with its own code:
  401 unauthorized -> 403 account_suspended/account_deleted -> 403 ip_not_allowed
  -> On-Behalf-Of: 400 validation_error, 403 organisation_only/insufficient_scope, 404 not_found,
     403 account_suspended/account_deleted (the subaccount's)
  -> 429 rate_limited -> 403 insufficient_scope -> 403 test_key_forbidden
A subaccount's credential is refused with its organisation's code too, while the organisation's
account is suspended or deleted. With On-Behalf-Of, the request acts in the subaccount: the
principal's account is the subaccount, and its rate window is the one counted; a refused
On-Behalf-Of counts in the credential's own account's window.
A warm instance knows a key's account before reading it (a key's hash names one key forever,
keys/store.py), so without On-Behalf-Of it counts the account's window beside the key's read, one
round trip instead of two; a request that authentication then refuses takes that count back, so
it counts in its source address's window only, as above.
A warm instance also remembers the principal it last admitted per API key (auth/speculation.py):
`speculate` gives it, without a read, to a route that confirms its admission before its first
durable write (POST /v3/messages), so that route's reads run beside the admission, which is made
in full as above on every request; a refusal before the scope's and mode's checks forgets it.
The rate window counts every authenticated request, including ones then refused for scope. A
request refused before it (401, 403 account status or IP allowlist), and every request to a public
route (`admit_public`), counts in its source address's window instead, so each response can report
a window (the interface puts the headers on every response); past that window's limit the answer
is 429 rate_limited, ahead of the 401.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from postline.accounts.domain import BLOCKED_STATUSES, Account, AccountStatus
from postline.accounts.ports import AccountStore
from postline.auth import ratelimit
from postline.auth.ports import ConsoleTokenVerifier
from postline.auth.speculation import AdmittedPrincipals
from postline.keys.access import Access, Environment, Scope, scope_permits
from postline.keys.domain import env_of_secret, ip_allowed
from postline.keys.identity import Principal
from postline.keys.ports import KeyStore, SecretHasher
from postline.shared.errors import ApiError, Forbidden, NotFound, RateLimited, Unauthorized, ValidationFailed
from postline.shared.parallel import outcomes
from postline.shared.ports import Clock, Meter
from postline.subaccounts.domain import ON_BEHALF_OF, ORGANISATION_ONLY
from postline.subaccounts.ports import SubaccountLookup
from postline.usage.ports import CounterStore

BEARER = "bearer "
RATE_LIMITED = "RateLimited"  # metric: 429 rate_limited answers, by window (account, source)
MAX_BEARER_LENGTH = 4096
MAX_ON_BEHALF_OF_LENGTH = 100
_BLOCKED_WORDS = {"account_suspended": "suspended", "account_deleted": "deleted"}
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RouteRule:
    access: Access
    live_only: bool


@dataclass(frozen=True)
class Admission:
    """The outcome of `Authenticator.admit`: who, the rate window (once counted), or why not."""

    principal: Principal | None
    rate: ratelimit.RateDecision | None
    refusal: ApiError | None


class Authenticator:
    def __init__(
        self,
        *,
        keys: KeyStore,
        accounts: AccountStore,
        subaccounts: SubaccountLookup,
        counters: CounterStore,
        hasher: SecretHasher,
        clock: Clock,
        console: ConsoleTokenVerifier | None,
        meter: Meter,
        ip_rate_limit: int = ratelimit.DEFAULT_IP_RATE_LIMIT,
        admitted: AdmittedPrincipals | None = None,
    ) -> None:
        self._keys = keys
        self._accounts = accounts
        self._subaccounts = subaccounts
        self._counters = counters
        self._hasher = hasher
        self._clock = clock
        self._console = console
        self._meter = meter
        self._ip_rate_limit = ip_rate_limit
        self._admitted = admitted  # the instance's memory of admitted keys (None: `speculate` never gives one)

    def admit(
        self,
        authorizations: Sequence[str],
        source_ip: str | None,
        rule: RouteRule,
        on_behalf_of: Sequence[str] = (),
    ) -> Admission:
        """Every check of a request, in the order above, from every Authorization header it carried
        and every On-Behalf-Of header. A refusal after the window was counted still carries the
        decision, so even a 403 or 429 reports the rate headers."""
        try:
            principal, counted = self._authenticate_counting(_sole(authorizations), source_ip, not on_behalf_of)
        except ApiError as refusal:
            self._forget(authorizations)
            source_rate = self.count_source_request(source_ip)
            return Admission(None, source_rate, refusal if source_rate.allowed else self._refuse(source_rate, "source"))
        try:
            principal = self.act_on_behalf(principal, on_behalf_of)
        except ApiError as refusal:
            rate = self.count_request(principal)  # the credential's own account's window
            return Admission(principal, rate, refusal if rate.allowed else self._refuse(rate, "account"))
        rate = counted or self.count_request(principal)
        if not rate.allowed:
            self._forget(authorizations)
            return Admission(principal, rate, self._refuse(rate, "account"))
        if not on_behalf_of:
            self._remember(principal)
        try:
            self.authorize(principal, rule)
        except ApiError as refusal:
            return Admission(principal, rate, refusal)
        self.touch(principal)
        return Admission(principal, rate, None)

    def speculate(
        self,
        authorizations: Sequence[str],
        source_ip: str | None,
        rule: RouteRule,
        on_behalf_of: Sequence[str] = (),
    ) -> Principal | None:
        """The principal this instance last admitted for the request's one API key, when its route's
        rule and the key's IP allowlist admit it from `source_ip` (as remembered: `admit` still
        decides); None for anything else (no memory of the key, a console token, On-Behalf-Of)."""
        if self._admitted is None or on_behalf_of or len(authorizations) != 1:
            return None
        try:
            token = _bearer(authorizations[0])
        except ApiError:
            return None
        if env_of_secret(token) is None:
            return None
        remembered = self._admitted.recall(self._hasher.hash(token))
        if remembered is None or remembered.key is None or remembered.account.blocked_code():
            return None
        if not ip_allowed(remembered.key.ip_allowlist, source_ip):
            return None
        principal = replace(remembered, source_ip=source_ip)
        try:
            self.authorize(principal, rule)
        except ApiError:
            return None
        return principal

    def _remember(self, principal: Principal) -> None:
        if self._admitted is not None and principal.key is not None:
            self._admitted.remember(principal.key.key_hash, principal)

    def _forget(self, authorizations: Sequence[str]) -> None:
        """The key's remembered principal forgotten, after a refusal of its key, account, address or window."""
        if self._admitted is None or len(authorizations) != 1:
            return
        try:
            token = _bearer(authorizations[0])
        except ApiError:
            return
        if env_of_secret(token) is not None:
            self._admitted.forget(self._hasher.hash(token))

    def _authenticate_counting(
        self, authorization: str | None, source_ip: str | None, counting: bool
    ) -> tuple[Principal, ratelimit.RateDecision | None]:
        """`authenticate`, with the account's window counted beside it when `counting` and this instance
        knows the key's account (else the decision is None: counted after). A refusal takes the count
        back; a count that failed fails the request, as it would one after the other."""
        account_id = self._known_account(authorization) if counting else None
        if account_id is None:
            return self.authenticate(authorization, source_ip), None
        now = self._clock.now()
        start = ratelimit.window_start(now)
        (principal, used), (refused, failed) = outcomes(
            lambda: self.authenticate(authorization, source_ip),
            lambda: self._counters.count_request(account_id, start, expires_at=start + 2 * ratelimit.WINDOW_SECONDS),
        )
        if refused is not None or principal.account.id != account_id:
            if failed is None:
                self._take_back(account_id, start)
            if refused is not None:
                raise refused
            return principal, None
        if failed is not None:
            raise failed
        return principal, ratelimit.decide(limit=principal.account.effective_rate_limit, used=used, now=now)

    def _known_account(self, authorization: str | None) -> str | None:
        """The account of the API key in the header, when this instance found it before (no read)."""
        try:
            token = _bearer(authorization)
        except ApiError:
            return None
        known = self._keys.known_key(self._hasher.hash(token)) if env_of_secret(token) is not None else None
        return known[0] if known else None

    def _take_back(self, account_id: str, window_start: int) -> None:
        try:
            self._counters.uncount_request(account_id, window_start)
        except Exception:  # the refusal still answers; the window counts one too many until it ends
            logger.exception("a refused request's count was not taken back from its account's window")

    def admit_public(self, source_ip: str | None) -> Admission:
        """A public route (no key): counted in the source address's window, refused past its limit."""
        rate = self.count_source_request(source_ip)
        return Admission(None, rate, None if rate.allowed else self._refuse(rate, "source"))

    def authenticate(self, authorization: str | None, source_ip: str | None) -> Principal:
        token = _bearer(authorization)
        if env_of_secret(token) is not None:
            principal = self._from_key(token, source_ip)
        else:
            principal = self._from_console_token(token, source_ip)
        self._check_status(principal.account)
        if principal.key and not ip_allowed(principal.key.ip_allowlist, source_ip):
            raise Forbidden(f"Requests from {source_ip} are not in this key's IP allowlist.", code="ip_not_allowed")
        return principal

    def act_on_behalf(self, principal: Principal, on_behalf_of: Sequence[str]) -> Principal:
        """The principal acting in the subaccount the On-Behalf-Of header names (its id or slug), when
        the request carries one: only an organisation's full_access credential may, and only for
        its own subaccounts (any other name is 404, as ids are scoped); a suspended or deleted
        subaccount refuses it as it refuses its own keys."""
        if not on_behalf_of:
            return principal
        if len(on_behalf_of) > 1:
            raise ValidationFailed(f"Send at most one {ON_BEHALF_OF} header.")
        reference = on_behalf_of[0].strip()
        if not reference or len(reference) > MAX_ON_BEHALF_OF_LENGTH:
            raise ValidationFailed(f"{ON_BEHALF_OF} names a subaccount by its id or its slug.")
        if principal.account.parent_account_id is not None:
            raise Forbidden(
                f"This credential belongs to subaccount {principal.account.id} and acts only there; "
                f"{ON_BEHALF_OF} needs its organisation's.",
                code=ORGANISATION_ONLY,
            )
        if principal.scope is not Scope.FULL_ACCESS:
            raise Forbidden(
                f"A {principal.scope.value} key cannot act on behalf of a subaccount; use a full_access key.",
                code="insufficient_scope",
            )
        subaccount = self._subaccounts.find_subaccount(principal.account.id, reference)
        if subaccount is None:
            raise NotFound(f"No subaccount {reference} in this organisation.")
        blocked = subaccount.blocked_code()
        if blocked:
            raise Forbidden(f"Subaccount {reference} is {_BLOCKED_WORDS[blocked]}.", code=blocked)
        return replace(principal, account=subaccount, credential_account=principal.account)

    def read_in_subaccount(self, principal: Principal, reference: str) -> Principal:
        """The principal reading in the subaccount `reference` names (its id or slug): the `subaccount`
        filter of GET /v3/events and /v3/metrics/*. Only an organisation's own credential may (any
        scope: it only reads), only for its own subaccounts (any other name is 404, as ids are
        scoped); a suspended one's history stays readable, a deleted one is 404."""
        reference = reference.strip()
        if not reference or len(reference) > MAX_ON_BEHALF_OF_LENGTH:
            raise ValidationFailed("subaccount: a subaccount's id or slug.")
        if principal.account.parent_account_id is not None:
            raise Forbidden(
                f"This request acts in subaccount {principal.account.id}; the subaccount filter is its organisation's.",
                code=ORGANISATION_ONLY,
            )
        subaccount = self._subaccounts.find_subaccount(principal.account.id, reference)
        if subaccount is None:
            raise NotFound(f"No subaccount {reference} in this organisation.")
        return replace(principal, account=subaccount, credential_account=principal.account)

    def count_request(self, principal: Principal) -> ratelimit.RateDecision:
        now = self._clock.now()
        start = ratelimit.window_start(now)
        used = self._counters.count_request(
            principal.account.id, start, expires_at=start + 2 * ratelimit.WINDOW_SECONDS
        )
        return ratelimit.decide(limit=principal.account.effective_rate_limit, used=used, now=now)

    def count_source_request(self, source_ip: str | None) -> ratelimit.RateDecision:
        now = self._clock.now()
        start = ratelimit.window_start(now)
        used = self._counters.count_source_request(
            ratelimit.source_key(source_ip), start, expires_at=start + 2 * ratelimit.WINDOW_SECONDS
        )
        return ratelimit.decide(limit=self._ip_rate_limit, used=used, now=now)

    def authorize(self, principal: Principal, rule: RouteRule) -> None:
        if not scope_permits(principal.scope, rule.access):
            raise Forbidden(f"A {principal.scope.value} key cannot perform this operation.", code="insufficient_scope")
        if rule.live_only and principal.env is Environment.TEST:
            raise Forbidden("This operation needs a live key; test keys cannot use it.", code="test_key_forbidden")

    def touch(self, principal: Principal) -> None:
        """Record last_used_at, writing at most once a minute per key (the read already happened)."""
        now = self._clock.now()
        if principal.key and principal.key.needs_last_used_touch(now):
            self._keys.touch_last_used(principal.key, now)

    @staticmethod
    def rate_limited(decision: ratelimit.RateDecision) -> RateLimited:
        return RateLimited(
            f"Rate limit of {decision.limit} requests per minute exceeded; retry in {decision.reset_seconds}s.",
            retry_after=decision.reset_seconds,
        )

    def _refuse(self, decision: ratelimit.RateDecision, window: str) -> RateLimited:
        """The 429 of a window past its limit, counted by window: the account's or the source address's."""
        self._meter.count(RATE_LIMITED, window=window)
        return self.rate_limited(decision)

    def _check_status(self, account: Account) -> None:
        """403 for a suspended or deleted account, and for a subaccount of one."""
        blocked = account.blocked_code()
        if blocked:
            raise Forbidden(f"This account is {_BLOCKED_WORDS[blocked]}.", code=blocked)
        if account.parent_account_id is not None:
            parent = self._accounts.get_account(account.parent_account_id)
            blocked = parent.blocked_code() if parent else BLOCKED_STATUSES[AccountStatus.TRASHED]
            if blocked:
                raise Forbidden(f"This subaccount's organisation is {_BLOCKED_WORDS[blocked]}.", code=blocked)

    def _from_key(self, secret: str, source_ip: str | None) -> Principal:
        key_hash = self._hasher.hash(secret)
        ids = self._keys.find_key_by_hash(key_hash)
        if ids is None:
            raise Unauthorized("Invalid or revoked API key.")
        # Read every time, never cached per instance: a rotated secret, a deleted key and a suspended
        # account are refused on the very next request (the read goes beside the window's count).
        api_key, account = self._keys.get_key_with_account(*ids)
        # The lookup item may lag a rotation by a moment; the key item itself is the authority.
        if api_key is None or account is None or not hmac.compare_digest(api_key.key_hash, key_hash):
            raise Unauthorized("Invalid or revoked API key.")
        return Principal(account=account, scope=api_key.scope, env=api_key.env, key=api_key, source_ip=source_ip)

    def _from_console_token(self, token: str, source_ip: str | None) -> Principal:
        claims = self._console.verify(token) if self._console else None
        if not claims or not isinstance(claims.get("account_id"), str):
            raise Unauthorized("Invalid or revoked API key.")
        account = self._accounts.get_account(claims["account_id"])
        if account is None:
            raise Unauthorized("Invalid or revoked API key.")
        try:
            scope = Scope(claims.get("scope", Scope.FULL_ACCESS.value))
        except ValueError as exc:
            raise Unauthorized("Console token carries an unknown scope.") from exc
        try:  # the console's test/live switch: the environment travels in the token, live when absent
            env = Environment(claims.get("env", Environment.LIVE.value))
        except ValueError as exc:
            raise Unauthorized("Console token carries an unknown environment.") from exc
        return Principal(
            account=account,
            scope=scope,
            env=env,
            user_id=str(claims.get("sub") or "") or None,
            source_ip=source_ip,
        )


def _sole(authorizations: Sequence[str]) -> str | None:
    """The one Authorization header; several (two keys, a bearer and a basic) are ambiguous and
    refused, never "the last one wins" (which is what a proxy event's single-valued headers hold)."""
    if len(authorizations) > 1:
        raise Unauthorized("Send exactly one Authorization header.")
    return authorizations[0] if authorizations else None


def _bearer(authorization: str | None) -> str:
    if not authorization or not authorization.lower().startswith(BEARER):
        raise Unauthorized("Send your API key as 'Authorization: Bearer <key>'.")
    token = authorization[len(BEARER) :].strip()
    # A comma joins repeated headers (RFC 9110 5.3) and is in neither a key nor a JWT: ambiguous.
    if not token or len(token) > MAX_BEARER_LENGTH or any(c.isspace() or c == "," for c in token):
        raise Unauthorized("Malformed Authorization header.")
    return token
