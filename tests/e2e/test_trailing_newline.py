"""A path whose last segment is a newline names nothing: 404, never the route without that segment.

Powertools matches routes with `$`, which also matches before a final newline, so GET
/v3/domains/%0A once answered the domain list (the contract fuzzer found it)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.support import Api, assert_error, make_account

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("path", ["/v3/domains/%0A", "/v3/keys/%0A", "/v3/webhooks/%0A"])
def test_a_final_newline_is_not_found(runtime: Any, path: str) -> None:
    api = Api(runtime.base_url, make_account().live_key)
    assert_error(api.get(path), 404, "not_found")
