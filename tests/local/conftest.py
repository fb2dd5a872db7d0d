"""Tests of the embedded runtime and its moto patches (devtools/). The runtime's own fixtures
(`runtime`, `spawn`, `fixture_stack`) live in tests/conftest.py; the moto patches' tests use
`stack`, the template's resources in moto in-process, as the adapter tests do, or `mock_aws` with
`moto_in_process`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.local.emulator import Emulator
from tests.aws_stack import InProcessStack, in_process_stack


@pytest.fixture
def moto_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """boto3 talks to moto's in-process mock: a runtime started earlier in this worker points
    AWS_ENDPOINT_URL at its emulator, which would answer instead (with its own patches)."""
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack() as stack:
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
