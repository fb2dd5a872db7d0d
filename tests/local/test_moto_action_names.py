"""The emulator's moto patch (devtools/moto_patches/action_names.py): a request's action is found
on its handler exactly when moto's listing of the handler's functions holds it; and the guard."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.core.responses import BaseResponse
from moto.core.utils import method_names_from_class
from moto.dynamodb.responses import DynamoHandler
from moto.dynamodbstreams.responses import DynamoDBStreamsHandler
from moto.kms.responses import KmsResponse
from moto.s3.responses import S3Response
from moto.sqs.responses import SQSResponse

from devtools.moto_patches import action_names
from tests.local.in_process import in_process_client

_HANDLERS = [DynamoHandler, DynamoDBStreamsHandler, SQSResponse, KmsResponse, S3Response, BaseResponse]


class _Odd(DynamoHandler):
    """A handler with what a listing treats specially: a class attribute that is not a function,
    a static method, a class method, a property and a name set on the class after its creation."""

    not_a_function = 3
    a_static = staticmethod(lambda: None)
    a_class_method = classmethod(lambda cls: None)

    @property
    def a_property(self) -> int:
        return 1


@pytest.mark.parametrize("handler", [*_HANDLERS, _Odd])
def test_in_answers_as_the_listing(handler: type[Any]) -> None:
    listed = set(method_names_from_class(handler))
    view = action_names.FunctionNames(handler)
    asked = set(dir(handler)) | {"batch_write_item", "no_such_action", "mro", "register", "", "__init__"}
    assert {name for name in asked if name in view} == listed & asked
    assert listed <= asked
    assert 3 not in view


def test_a_name_added_later_is_seen() -> None:
    class Late(DynamoHandler):
        pass

    view = action_names.FunctionNames(Late)
    assert "late_action" not in view
    Late.late_action = lambda self: None  # type: ignore[attr-defined]
    assert "late_action" in view and "late_action" in method_names_from_class(Late)


def _calls() -> list[Any]:
    answers: list[Any] = []
    with mock_aws():
        db = in_process_client("dynamodb")
        table = f"names-{uuid.uuid4().hex[:8]}"
        db.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")  # fmt: skip
        db.put_item(TableName=table, Item={"pk": {"S": "a"}})
        answers.append(db.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"])
        sqs = in_process_client("sqs")
        url = sqs.create_queue(QueueName=f"names-{uuid.uuid4().hex[:8]}")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="x")
        answers.append([m["Body"] for m in sqs.receive_message(QueueUrl=url).get("Messages", [])])
        try:  # an operation DynamoDB has and moto's handler does not
            db.describe_contributor_insights(TableName=table)
        except (ClientError, NotImplementedError) as error:
            answers.append(error.response["Error"]["Code"] if isinstance(error, ClientError) else type(error).__name__)
        else:
            answers.append("answered")
    return answers


def test_requests_answer_as_moto_answers_them() -> None:
    action_names.uninstall()
    theirs = _calls()
    with action_names.installed():
        ours = _calls()
    assert ours == theirs
    assert ours[:2] == [{"pk": {"S": "a"}}, ["x"]]


def test_guard() -> None:
    action_names.uninstall()
    action_names.check_internals()
