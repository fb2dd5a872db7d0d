"""Tests of the embedded runtime and its moto patches (devtools/). The runtime's own fixtures
(`runtime`, `spawn`, `fixture_stack`) live in tests/conftest.py; the moto patches' tests use
`stack`, the template's resources in moto in-process, as the adapter tests do, or `mock_aws` with
clients from tests/local/in_process.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.local.emulator import Emulator
from tests.aws_stack import InProcessStack, in_process_stack


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    """moto as it is: the patches' tests compare them with it."""
    with in_process_stack(patched=False) as stack:
        yield stack


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    """The emulator as `make run` starts it (moto and its patches in a child process), one a module;
    a module that needs it started otherwise defines its own."""
    running = Emulator(port=0)
    running.start()
    try:
        yield running
    finally:
        running.stop()
