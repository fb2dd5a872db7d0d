"""shared/dynamo_wire.py: a bulk client's batch bodies, dumped as built, are byte for byte what
botocore's own serializer makes of the same parameters (and its other operations are botocore's)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.config import Config

from postline.shared.dynamo_wire import AsBuiltSerializer, send_as_built

ITEM = {
    "pk": {"S": "MSG#msg_1"},
    "sk": {"S": "MSG"},
    "count": {"N": "12.50"},
    "test": {"BOOL": False},
    "gone": {"NULL": True},
    "body": {"B": b"\x00\xffbinary"},
    "parts": {"BS": [b"a", b"bc"]},
    "tags": {"SS": ["news", "é ünïcode", 'quote " and \\ slash']},
    "nested": {"M": {"to": {"L": [{"S": "ann@example.com"}, {"N": "3"}, {"M": {}}]}, "empty": {"L": []}}},
}
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    (
        "BatchWriteItem",
        {
            "RequestItems": {
                "messages": [{"PutRequest": {"Item": ITEM}}, {"DeleteRequest": {"Key": {"pk": {"S": "x"}}}}],
                "events": [{"PutRequest": {"Item": {"pk": {"S": "EVT#a"}, "sk": {"S": "1"}}}}],
            },
            "ReturnConsumedCapacity": "TOTAL",
        },
    ),
    (
        "BatchGetItem",
        {
            "RequestItems": {
                "suppressions": {
                    "Keys": [{"pk": {"S": "SUP#a"}, "sk": {"S": f"r{i}@example.com#bounces"}} for i in range(100)],
                    "ConsistentRead": True,
                    "ProjectionExpression": "#i, created_at",
                    "ExpressionAttributeNames": {"#i": "id"},
                }
            }
        },
    ),
]


def _client(**config: Any) -> Any:
    return boto3.session.Session().client(
        "dynamodb",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(parameter_validation=False, **config),
    )


@pytest.mark.parametrize(("operation", "parameters"), REQUESTS, ids=[name for name, _ in REQUESTS])
def test_a_batch_body_is_what_botocore_serializes(operation: str, parameters: dict[str, Any]) -> None:
    plain = _client()
    fast = send_as_built(_client())
    model = plain.meta.service_model.operation_model(operation)
    expected = plain._serializer.serialize_to_request(parameters, model)
    got = fast._serializer.serialize_to_request(parameters, model)
    assert isinstance(fast._serializer, AsBuiltSerializer)
    assert got["body"] == expected["body"]
    assert got == expected  # method, URL, headers too


def test_other_operations_and_services_are_botocores() -> None:
    fast = send_as_built(_client())
    model = fast.meta.service_model.operation_model("PutItem")
    parameters = {"TableName": "t", "Item": ITEM}
    assert fast._serializer.serialize_to_request(parameters, model) == _client()._serializer.serialize_to_request(
        parameters, model
    )
    s3 = boto3.session.Session().client(
        "s3", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing"
    )
    assert send_as_built(s3)._serializer is s3._serializer  # nothing of it sent as built: unchanged
    assert send_as_built(fast)._serializer is fast._serializer  # once


def test_an_sqs_batch_body_is_what_botocore_serializes() -> None:
    def sqs() -> Any:
        return boto3.session.Session().client(
            "sqs",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            config=Config(parameter_validation=False),
        )

    plain, fast = sqs(), send_as_built(sqs())
    model = plain.meta.service_model.operation_model("SendMessageBatch")
    parameters = {
        "QueueUrl": "http://127.0.0.1:4566/000000000000/send",
        "Entries": [
            {"Id": str(i), "MessageBody": '{"message_id":"msg_é","attempt":1}', "DelaySeconds": i} for i in range(10)
        ],
    }
    expected = plain._serializer.serialize_to_request(parameters, model)
    assert fast._serializer.serialize_to_request(parameters, model) == expected
    other = plain.meta.service_model.operation_model("SendMessage")
    one = {"QueueUrl": parameters["QueueUrl"], "MessageBody": "x"}
    assert fast._serializer.serialize_to_request(one, other) == plain._serializer.serialize_to_request(one, other)


def test_a_value_dynamodb_has_no_wire_form_for_is_refused() -> None:
    fast = send_as_built(_client())
    model = fast.meta.service_model.operation_model("BatchWriteItem")
    with pytest.raises(TypeError, match="not a DynamoDB wire value"):
        fast._serializer.serialize_to_request(
            {"RequestItems": {"t": [{"PutRequest": {"Item": {"pk": {"S": object()}}}}]}}, model
        )
