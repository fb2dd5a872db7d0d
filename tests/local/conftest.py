"""Tests of the embedded runtime and its moto patches (devtools/). The runtime's own fixtures
(`runtime`, `spawn`, `fixture_stack`) live in tests/conftest.py; the moto patches' tests use
`stack`, the template's resources in moto in-process, as the adapter tests do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.aws_stack import InProcessStack, in_process_stack


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack() as stack:
        yield stack
