"""Unit-test wiring: the services of postline over the in-memory fakes of tests/fakes.py; no network."""

from __future__ import annotations

import pytest

from .world import World, build_world


@pytest.fixture
def world() -> World:
    return build_world()
