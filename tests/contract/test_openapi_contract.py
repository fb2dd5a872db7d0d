"""Schemathesis over the generated OpenAPI document, against the embedded runtime.

No 5xx, every response documented and matching its schema, every error in the spec's shape,
and no operation that works without a key.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from postline.domain.accounts import Plan
from tests.aws_stack import ROOT
from tests.e2e.support import make_account

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def contract_key(runtime: Any) -> str:
    # Its own professional account, so generated writes cannot touch other tests' keys.
    return make_account(plan=Plan.PROFESSIONAL).live_key


@pytest.fixture(scope="module")
def openapi(runtime: Any) -> Any:
    return schemathesis.openapi.from_path(ROOT / "infra" / "openapi.json")


schema = schemathesis.pytest.from_fixture("openapi")


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_honours_its_openapi_document(case: Any, runtime: Any, contract_key: str) -> None:
    response = case.call_and_validate(base_url=runtime.base_url, headers={"Authorization": f"Bearer {contract_key}"})
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error", "request_id"}
        assert body["request_id"] == response.headers["X-Request-Id"]
