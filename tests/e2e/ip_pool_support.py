"""Helpers of the IP pool tests: loopback addresses no other test holds."""

from __future__ import annotations

import uuid


def unused_loopback_ip() -> str:
    """An address on 127.0.0.0/8 (every one is local on Linux, so the relay can bind it), drawn at
    random outside 127.0.0.0/16: an address is held by one account at a time, across test runs."""
    value = uuid.uuid4().int
    return f"127.{1 + value % 254}.{(value >> 8) % 256}.{1 + (value >> 16) % 254}"
