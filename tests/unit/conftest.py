"""Unit-test wiring: the services of postline over the in-memory fakes of tests/fakes/; no network."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.network_guard import NetworkGuard

from .world import World, build_world


@pytest.fixture(autouse=True)
def network_guard() -> Iterator[NetworkGuard]:
    """Every unit test runs without the network: an attempt fails it (tests/network_guard.py)."""
    with NetworkGuard.installed() as guard:
        yield guard


@pytest.fixture
def world() -> World:
    return build_world()
