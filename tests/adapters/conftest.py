from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.aws_stack import InProcessStack, in_process_stack


@pytest.fixture(scope="module")
def stack() -> Iterator[InProcessStack]:
    with in_process_stack() as stack:
        yield stack
