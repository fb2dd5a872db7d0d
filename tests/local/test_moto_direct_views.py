"""The emulator's moto patch (devtools/moto_patches/direct_views.py): JSON-protocol requests of every
service the runtime calls answer, status, headers and body, as through moto's Flask apps; other
requests still go through Flask; and the guard."""

from __future__ import annotations

import json
from typing import Any

import pytest
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.test import Client, TestResponse

from devtools.moto_patches import direct_views

AUTH = "AWS4-HMAC-SHA256 Credential=testing/20261129/us-east-1/{}/aws4_request, SignedHeaders=host, Signature=x"
JSON_10 = "application/x-amz-json-1.0"
JSON_11 = "application/x-amz-json-1.1"
HOSTS = {"dynamodbstreams": "streams.dynamodb.us-east-1.amazonaws.com"}
RANDOM_HEADERS = {"x-amzn-requestid", "x-amz-request-id"}  # moto makes a new one per answer


def _request(client: Client, service: str, target: str, body: dict[str, Any], content_type: str) -> TestResponse:
    headers = {
        "X-Amz-Target": target,
        "Content-Type": content_type,
        "Authorization": AUTH.format("dynamodb" if service == "dynamodbstreams" else service),  # as boto signs it
        "Host": HOSTS.get(service, f"{service}.us-east-1.amazonaws.com"),
    }
    return client.post("/", data=json.dumps(body).encode(), headers=headers)


def _seen(response: TestResponse) -> tuple[str, list[tuple[str, str]], bytes]:
    headers = [(name, value) for name, value in response.headers.items() if name.lower() not in RANDOM_HEADERS]
    return response.status, headers, response.data


# (service, target, body, content type): each idempotent, so asked twice it answers alike.
TABLE = "direct-views"
KEY = {"pk": {"S": "a"}}
QUERY = {"TableName": TABLE, "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}
READS: list[tuple[str, str, dict[str, Any], str]] = [
    ("dynamodb", "DynamoDB_20120810.ListTables", {}, JSON_10),
    ("dynamodb", "DynamoDB_20120810.DescribeTable", {"TableName": TABLE}, JSON_10),
    ("dynamodb", "DynamoDB_20120810.PutItem", {"TableName": TABLE, "Item": {**KEY, "n": {"N": "1"}}}, JSON_10),
    ("dynamodb", "DynamoDB_20120810.GetItem", {"TableName": TABLE, "Key": KEY}, JSON_10),
    ("dynamodb", "DynamoDB_20120810.Query", QUERY, JSON_10),
    ("dynamodb", "DynamoDB_20120810.GetItem", {"TableName": "missing", "Key": KEY}, JSON_10),  # a 400
    ("dynamodb", "DynamoDB_20120810.PutItem", {"TableName": TABLE, "Item": {"n": {"N": "1"}}}, JSON_10),  # no key
    ("dynamodbstreams", "DynamoDBStreams_20120810.ListStreams", {}, JSON_10),
    ("sqs", "AmazonSQS.ListQueues", {}, JSON_10),
    ("sqs", "AmazonSQS.GetQueueUrl", {"QueueName": "direct-views"}, JSON_10),
    ("sqs", "AmazonSQS.GetQueueUrl", {"QueueName": "missing"}, JSON_10),
    ("kms", "TrentService.ListKeys", {}, JSON_11),
    ("secretsmanager", "secretsmanager.ListSecrets", {}, JSON_11),
]


@pytest.fixture
def client() -> Client:
    client = Client(DomainDispatcherApplication(create_backend_app))
    _request(client, "dynamodb", "DynamoDB_20120810.CreateTable", {
        "TableName": TABLE, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
    }, JSON_10)  # fmt: skip
    _request(client, "sqs", "AmazonSQS.CreateQueue", {"QueueName": "direct-views"}, JSON_10)
    return client


@pytest.mark.parametrize(("service", "target", "body", "content_type"), READS, ids=[r[1] for r in READS])
def test_a_json_request_answers_as_through_flask(
    client: Client, service: str, target: str, body: dict[str, Any], content_type: str
) -> None:
    direct_views.uninstall()
    through_flask = _seen(_request(client, service, target, body, content_type))
    with direct_views.installed():
        direct = _seen(_request(client, service, target, body, content_type))
        assert direct_views._views, "the request did not take the direct path"
    assert direct == through_flask


def test_other_requests_go_through_flask(client: Client) -> None:
    with direct_views.installed():
        answer = client.get("/moto-api/data.json")
        assert answer.status_code == 200
        with_origin = client.post(
            "/",
            data=b"{}",
            headers={
                "X-Amz-Target": "DynamoDB_20120810.ListTables",
                "Content-Type": JSON_10,
                "Authorization": AUTH.format("dynamodb"),
                "Origin": "http://example.test",
            },
        )
        assert with_origin.status_code == 200
        assert not direct_views._views  # neither was looked up for the direct path


def test_guard_refuses_changed_source(monkeypatch: pytest.MonkeyPatch) -> None:
    direct_views.check_internals()

    def changed(self: Any, environ: Any, start_response: Any) -> Any:
        return []

    monkeypatch.setattr(DomainDispatcherApplication, "__call__", changed)
    with pytest.raises(RuntimeError, match=r"moto changed DomainDispatcherApplication\.__call__"):
        direct_views.check_internals()
