"""template.yaml's tables, queues and buckets exist in the AWS emulator, listed through
localstack-client (`localstack_client.session.Session`) as a LocalStack user would list them.

By default the target is this session's embedded runtime (moto on a free port; stack name
postline-local, resources named <stack>-<LogicalId>). The same tests check a stack deployed into a
real LocalStack: set POSTLINE_TEST_STACK to its stack name, and AWS_ENDPOINT_URL (or LOCALSTACK_HOST)
to LocalStack's address (default localhost:4566); CloudFormation's generated names
(<stack>-<LogicalId>-<suffix>) match too. See README.md, "Against a real LocalStack".
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from localstack_client.session import Session

from devtools.local.cloudformation import REGION, STACK_NAME, Template

pytestmark = pytest.mark.e2e

TEMPLATE = Template.load(Path(__file__).resolve().parents[2] / "template.yaml")
# Read at import, before a runtime started in this worker points AWS_ENDPOINT_URL at its emulator.
_EXTERNAL_STACK = os.environ.get("POSTLINE_TEST_STACK")
_EXTERNAL_ENDPOINT = os.environ.get("AWS_ENDPOINT_URL")


@dataclass(frozen=True)
class Target:
    session: Any  # localstack_client.session.Session
    stack_name: str

    def client(self, service: str) -> Any:
        return self.session.client(service)


@pytest.fixture
def target(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Target:
    if _EXTERNAL_STACK:
        # localstack-client prefers AWS_ENDPOINT_URL to its localstack_host: the user's, not a runtime's.
        if _EXTERNAL_ENDPOINT:
            monkeypatch.setenv("AWS_ENDPOINT_URL", _EXTERNAL_ENDPOINT)
        else:
            monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
        session = Session(region_name=os.environ.get("AWS_DEFAULT_REGION", REGION))
        return Target(session, _EXTERNAL_STACK)
    runtime = request.getfixturevalue("runtime")
    session = Session(
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name=REGION,
        localstack_host=urlsplit(runtime.endpoint_url).netloc,  # host:port; LocalStack's is localhost:4566
    )
    return Target(session, STACK_NAME)


def _matches(names: Iterable[str], stack_name: str, logical_ids: Iterable[str]) -> dict[str, list[str]]:
    """logical id -> the names that are its physical name, as the runtime or CloudFormation makes them."""
    names = list(names)
    found = {}
    for logical_id in logical_ids:
        pattern = re.compile(rf"{re.escape(stack_name)}-{re.escape(logical_id)}(-[A-Za-z0-9]+)?", re.IGNORECASE)
        found[logical_id] = [name for name in names if pattern.fullmatch(name)]
    return found


def test_every_table_of_the_template_exists(target: Target) -> None:
    dynamodb = target.client("dynamodb")
    names = [name for page in dynamodb.get_paginator("list_tables").paginate() for name in page["TableNames"]]
    tables = TEMPLATE.of_type("AWS::DynamoDB::Table")

    found = _matches(names, target.stack_name, tables)

    assert {lid: len(matched) for lid, matched in found.items()} == dict.fromkeys(tables, 1), names
    for logical_id, (name,) in found.items():
        described = dynamodb.describe_table(TableName=name)["Table"]
        assert described["KeySchema"] == tables[logical_id]["Properties"]["KeySchema"]


def test_every_queue_of_the_template_exists(target: Target) -> None:
    sqs = target.client("sqs")
    urls = [url for page in sqs.get_paginator("list_queues").paginate() for url in page.get("QueueUrls", [])]
    queues = TEMPLATE.of_type("AWS::SQS::Queue")

    found = _matches((url.rsplit("/", 1)[-1] for url in urls), target.stack_name, queues)

    assert {lid: len(matched) for lid, matched in found.items()} == dict.fromkeys(queues, 1), urls


def test_every_bucket_of_the_template_exists(target: Target) -> None:
    names = [bucket["Name"] for bucket in target.client("s3").list_buckets()["Buckets"]]
    buckets = TEMPLATE.of_type("AWS::S3::Bucket")

    found = _matches(names, target.stack_name, buckets)

    assert {lid: len(matched) for lid, matched in found.items()} == dict.fromkeys(buckets, 1), names
