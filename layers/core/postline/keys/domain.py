"""API keys: the stored key, its IP allowlist and simulator weights (scopes, environments and the access
rule per route: keys/access.py)."""

from __future__ import annotations

import ipaddress
import math
from datetime import datetime
from typing import Annotated

from pydantic import BeforeValidator, Field, field_validator

from postline.keys.access import Environment, Scope
from postline.shared.base import Model
from postline.shared.verification_results import VerificationResult

LAST_USED_RESOLUTION_SECONDS = 60  # last_used_at is written at most once a minute per key
KEY_PREFIX_LENGTH = 12  # characters of the secret shown as its display prefix


SEND_OUTCOMES = ("delivered", "bounce", "soft_bounce", "complaint", "delayed", "ooto", "suppressionlist")
VERIFY_OUTCOMES = tuple(result.value for result in VerificationResult)


def _check_weights(weights: dict[str, float], allowed: tuple[str, ...], label: str) -> dict[str, float]:
    unknown = sorted(set(weights) - set(allowed))
    if unknown:
        raise ValueError(f"unknown {label} outcome(s) {unknown}; allowed: {', '.join(allowed)}")
    for name, weight in weights.items():
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"{label} weight for {name!r} must be a finite number >= 0")
    if sum(weights.values()) <= 0:
        raise ValueError(f"{label} weights need at least one outcome with a weight above zero")
    return weights


class TestOutcomes(Model):
    """Weights the simulator draws outcomes from for a test key (relative, need not sum to 1)."""

    __test__ = False  # not a pytest class

    send: dict[str, float] = Field(default_factory=lambda: {"delivered": 1.0})
    verify: dict[str, float] = Field(default_factory=lambda: {"valid": 1.0})

    @field_validator("send")
    @classmethod
    def _send(cls, value: dict[str, float]) -> dict[str, float]:
        return _check_weights(value, SEND_OUTCOMES, "send")

    @field_validator("verify")
    @classmethod
    def _verify(cls, value: dict[str, float]) -> dict[str, float]:
        return _check_weights(value, VERIFY_OUTCOMES, "verify")


def normalize_cidr(value: object) -> str:
    """'10.1.2.3/8' -> '10.0.0.0/8', '2001:DB8::1' -> '2001:db8::1/128'; host bits are cleared."""
    if not isinstance(value, str):
        raise ValueError("cidr must be a string")
    try:
        network = ipaddress.ip_network(value.strip(), strict=False)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an IPv4 or IPv6 CIDR") from exc
    mapped = network.network_address.ipv4_mapped if isinstance(network, ipaddress.IPv6Network) else None
    if mapped is not None and network.prefixlen >= 96:
        # ::ffff:a.b.c.d/n is an IPv4 network in IPv6 clothing; sources are compared as IPv4.
        return str(ipaddress.IPv4Network((mapped, network.prefixlen - 96)))
    return str(network)


Cidr = Annotated[str, BeforeValidator(normalize_cidr)]


class AllowlistEntry(Model):
    cidr: Cidr
    label: str = Field(default="", max_length=100)


MAX_ALLOWLIST_ENTRIES = 50


def ip_allowed(allowlist: list[AllowlistEntry], source_ip: str | None) -> bool:
    """Empty allowlist = no restriction. IPv4-mapped IPv6 sources match IPv4 entries."""
    if not allowlist:
        return True
    if not source_ip:
        return False
    try:
        address = ipaddress.ip_address(source_ip)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return any(address in ipaddress.ip_network(entry.cidr) for entry in allowlist)


class ApiKey(Model):
    """A stored key. `key_hash` is a keyed hash of the secret; the secret itself is never stored."""

    id: str
    account_id: str
    name: str
    prefix: str
    scope: Scope
    env: Environment
    key_hash: str
    verify_before_send: bool | None = None
    test_outcomes: TestOutcomes | None = None
    ip_allowlist: list[AllowlistEntry] = Field(default_factory=list)
    last_used_at: datetime | None = None
    created_at: datetime
    routed_to_sandbox: bool = False  # set by the operator only; never shown in the API (sending/screening.py)

    def needs_last_used_touch(self, now: datetime) -> bool:
        if self.last_used_at is None:
            return True
        return (now - self.last_used_at).total_seconds() >= LAST_USED_RESOLUTION_SECONDS


def secret_prefix(env: Environment) -> str:
    """Secrets read as what they are: pl_live_... or pl_test_..."""
    return f"pl_{env.value}_"


def display_prefix(secret: str) -> str:
    return secret[:KEY_PREFIX_LENGTH]


def env_of_secret(secret: str) -> Environment | None:
    for env in Environment:
        if secret.startswith(secret_prefix(env)):
            return env
    return None
