"""The contract tests run against the same per-worker embedded runtime as the e2e suite."""

from tests.e2e.conftest import runtime

__all__ = ["runtime"]
