"""Schemathesis over the generated OpenAPI document, against the embedded runtime.

No 5xx, every response documented and matching its schema, every error in the spec's shape,
and no operation that works without a key. Driven through schemathesis' Python API with
Hypothesis directly: its pytest plugin does not support pytest 9 yet.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from postline.accounts.domain import Plan
from tests.aws_stack import ROOT
from tests.e2e.support import Api, make_account

pytestmark = pytest.mark.e2e

SCHEMA = schemathesis.openapi.from_path(ROOT / "infra" / "openapi.json")
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]


@pytest.fixture(scope="module")
def contract_key(runtime: Any) -> str:
    # Its own professional account, so generated writes cannot touch other tests' keys.
    return make_account(plan=Plan.PROFESSIONAL).live_key


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: op.label)
def test_the_api_honours_its_openapi_document(operation: Any, runtime: Any, contract_key: str) -> None:
    @given(case=operation.as_strategy())
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case: Any) -> None:
        response = case.call_and_validate(
            base_url=runtime.base_url,
            headers={"Authorization": f"Bearer {contract_key}"},
            # Some rules are beyond JSON Schema (CIDR syntax, weights that must not all be zero), so a
            # schema-valid body may rightly get 400; every other check stays on.
            excluded_checks=[schemathesis.checks.positive_data_acceptance],
        )
        if response.status_code >= 400 and case.method != "HEAD":  # a HEAD's answer has no body
            body = response.json()
            assert set(body) == {"error", "request_id"}
            headers = {name.lower(): value for name, value in response.headers.items()}
            assert [body["request_id"]] == headers["x-request-id"]  # schemathesis lists header values

    check()


def test_the_success_of_a_write_that_can_answer_409_is_documented(runtime: Any, contract_key: str) -> None:
    """Random ids rarely reach a success, so these writes are made to succeed: each answer must be
    documented with its schema (schemathesis' status and schema conformance), not only the 409."""
    auth = {"Authorization": f"Bearer {contract_key}"}
    api = Api(runtime.base_url, contract_key)
    key_id = api.post("/v3/keys", json={"name": "contract"}).json()["id"]
    address = f"contract-{uuid.uuid4().hex[:8]}@lists.postline.test"
    list_id = api.post("/v3/lists", json={"address": address, "name": "contract"}).json()["id"]
    suppression = {"type": "bounces", "email": f"contract-{uuid.uuid4().hex[:8]}@example.com"}
    calls = [
        ("/v3/keys/{id}", "PATCH", {"id": key_id}, {"name": "renamed"}, 200),
        ("/v3/keys/{id}/rotate", "POST", {"id": key_id}, None, 200),
        ("/v3/lists/{id}/members/bulk", "POST", {"id": list_id}, {"members": [{"address": "ann@example.com"}]}, 200),
        ("/v3/suppressions", "POST", {}, suppression, 201),
        ("/v3/suppressions", "POST", {}, suppression, 200),  # already there: the entry, 200
    ]
    for path, method, parameters, body, status in calls:
        operation = SCHEMA[path][method]
        case = operation.Case(path_parameters=parameters, **({} if body is None else {"body": body}))
        response = case.call_and_validate(base_url=runtime.base_url, headers=auth)
        assert response.status_code == status, (path, method, response.text)
