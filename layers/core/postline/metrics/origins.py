"""Where an open or click came from: country from the visitor's IP address, client from its user
agent, from pinned offline data shipped in the packages (`iptocc`: an IP-to-country table built
from the regional internet registries' delegations; `ua-parser` with `ua-parser-builtins`: the
uap-core rules). No network call at ingest; results are cached per value, as a batch's opens
mostly share a few clients."""

from __future__ import annotations

from functools import lru_cache

import iptocc
from ua_parser import parse_user_agent

_CACHE = 4096


@lru_cache(maxsize=_CACHE)
def country_of(ip: str | None) -> str | None:
    """ISO 3166-1 alpha-2 code, or None for a private, reserved or malformed address."""
    if not ip:
        return None
    try:
        code = iptocc.country_code(ip)
    except (ValueError, TypeError):
        return None
    return code if isinstance(code, str) and code else None


@lru_cache(maxsize=_CACHE)
def client_of(user_agent: str | None) -> str | None:
    """The client's family as uap-core names it (Apple Mail, Chrome, Outlook, ...); None unknown."""
    if not user_agent:
        return None
    found = parse_user_agent(user_agent)
    if found is None or not found.family or found.family == "Other":
        return None
    return found.family
