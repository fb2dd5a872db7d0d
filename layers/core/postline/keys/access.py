"""API keys' scopes and environments, and the access rule per route: what the route table and the
authorizer need, without the keys' models (so a worker's settings lookup does not build them)."""

from __future__ import annotations

from enum import StrEnum


class Scope(StrEnum):
    FULL_ACCESS = "full_access"
    SEND_ONLY = "send_only"
    READ_ONLY = "read_only"


class Environment(StrEnum):
    LIVE = "live"
    TEST = "test"


class Access(StrEnum):
    """What a route does, as far as scopes care (the interface's scopes: README, The API so far)."""

    READ = "read"  # any GET
    SEND = "send"  # POST /v3/messages, POST /v3/messages.batch
    CANCEL_OWN_SEND = "cancel_own_send"  # DELETE of a scheduled send the key itself created
    WRITE = "write"  # every other write
    PUBLIC = "public"  # no API key at all (tracking pixels, well-known keys)


def scope_permits(scope: Scope, access: Access) -> bool:
    if access in (Access.READ, Access.PUBLIC) or scope is Scope.FULL_ACCESS:
        return True
    if scope is Scope.SEND_ONLY:
        return access in (Access.SEND, Access.CANCEL_OWN_SEND)
    return False
