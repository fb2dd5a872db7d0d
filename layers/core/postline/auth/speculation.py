"""Running a request on the principal this instance admitted for its key last time, while the key is
read again: the send's reads start beside the key's instead of after it.

A warm instance remembers, per API key (by its hash), the principal it last admitted
(`AdmittedPrincipals`, bounded). A route whose use case confirms its admission before its first
durable write (routes.py `speculative`) may run on that principal at once (`Authenticator.speculate`)
while the request's admission runs as always (`Confirmation`): the key, its account and the rate
window are read on every request, so a revoked key, a suspended account or a new allowlist still
apply to the very next request. The use case joins the admission before it writes anything that
stays (`Confirmation.confirm`), and the plumbing joins it before any answer leaves:
- refused: the refusal is the answer, whatever the route made of the request (a revoked key with a
  bad body is 401, as ever); the use case gave back what it had taken (a send's quota reservation);
- admitted, with a principal that differs from the remembered one in anything but its key's
  last_used_at: what ran is given back and the request runs again on the admitted principal;
- admitted, the same: the answer stands.
Only API keys without On-Behalf-Of are remembered: never a console token, never a subaccount acted for.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from postline.keys.identity import Principal
from postline.shared.errors import ApiError

if TYPE_CHECKING:
    from postline.auth.service import Admission

ADMITTED_MEMORY_SIZE = 1_000  # keys an instance remembers the principal of (least recently used first out)


class SpeculationMissed(ApiError):
    """The admission's principal differs from the one the request ran on: the use case gives back what
    it took and the plumbing runs the request again (never an answer; 503 if it ever were one)."""

    status, code = 503, "service_unavailable"


class AdmittedPrincipals:
    """The principal each API key was last admitted as on this instance (by the key's hash), the most
    recently used `size` of them; thread-safe."""

    def __init__(self, size: int = ADMITTED_MEMORY_SIZE) -> None:
        self._size = size
        self._principals: OrderedDict[str, Principal] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, key_hash: str, principal: Principal) -> None:
        with self._lock:
            self._principals[key_hash] = principal
            self._principals.move_to_end(key_hash)
            while len(self._principals) > self._size:
                self._principals.popitem(last=False)

    def forget(self, key_hash: str) -> None:
        with self._lock:
            self._principals.pop(key_hash, None)

    def recall(self, key_hash: str) -> Principal | None:
        with self._lock:
            principal = self._principals.get(key_hash)
            if principal is not None:
                self._principals.move_to_end(key_hash)
            return principal


def same_principal(first: Principal, second: Principal) -> bool:
    """Equal in everything a request's handling reads: all of it but the key's last use, which the
    admission touches once a minute."""
    return _without_last_use(first) == _without_last_use(second)


def _without_last_use(principal: Principal) -> Principal:
    if principal.key is None:
        return principal
    return Principal(
        account=principal.account,
        scope=principal.scope,
        env=principal.env,
        key=principal.key.model_copy(update={"last_used_at": None}),
        user_id=principal.user_id,
        source_ip=principal.source_ip,
        credential_account=principal.credential_account,
    )


class Confirmation:
    """A request's admission while it runs on a remembered principal: made once, by whichever
    thread asks first (the use case's, beside its reads; or the plumbing's, after the route), the
    others waiting for it."""

    def __init__(self, admit: Callable[[], Admission], speculated: Principal) -> None:
        self._admit = admit
        self.speculated = speculated
        self._lock = threading.Lock()
        self._admission: Admission | None = None
        self._failure: BaseException | None = None

    def admission(self) -> Admission:
        """The admission (made now if nobody made it yet); a failure to make it is raised to each caller."""
        with self._lock:
            if self._admission is None and self._failure is None:
                try:
                    self._admission = self._admit()
                except BaseException as failure:
                    self._failure = failure
            if self._failure is not None:
                raise self._failure
            assert self._admission is not None
            return self._admission

    @property
    def missed(self) -> bool:
        """Admitted, as another principal than the one the request ran on (call after `admission`)."""
        admitted = self.admission()
        return (
            admitted.refusal is None
            and admitted.principal is not None
            and not same_principal(admitted.principal, self.speculated)
        )

    def confirm(self) -> None:
        """Returns once the request is admitted as the principal it ran on; raises the refusal, or
        SpeculationMissed when it was admitted as another."""
        admitted = self.admission()
        if admitted.refusal is not None:
            raise admitted.refusal
        if self.missed:
            raise SpeculationMissed("The request's credentials changed while it ran; retry it.")
