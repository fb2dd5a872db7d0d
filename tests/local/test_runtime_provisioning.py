"""Resources of tests/fixtures/pump-template.yaml as the runtime created them in the emulator."""

from __future__ import annotations

import json

import pytest

from tests.conftest import FixtureStack

pytestmark = pytest.mark.e2e


def test_tables_get_their_keys_indexes_stream_and_ttl(fixture_stack: FixtureStack) -> None:
    dynamodb = fixture_stack.client("dynamodb")
    table = dynamodb.describe_table(TableName="postline-local-ItemsTable")["Table"]

    assert table["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}]
    assert [index["IndexName"] for index in table["GlobalSecondaryIndexes"]] == ["by-kind"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    ttl = dynamodb.describe_time_to_live(TableName="postline-local-ItemsTable")["TimeToLiveDescription"]
    assert (ttl["TimeToLiveStatus"], ttl["AttributeName"]) == ("ENABLED", "expires_at")


def test_queues_get_their_attributes_and_dead_letter_queue(fixture_stack: FixtureStack) -> None:
    sqs = fixture_stack.client("sqs")
    attributes = sqs.get_queue_attributes(QueueUrl=fixture_stack.env["JOBS_QUEUE_URL"], AttributeNames=["All"])
    dlq = sqs.get_queue_attributes(QueueUrl=fixture_stack.env["JOBS_DLQ_URL"], AttributeNames=["QueueArn"])

    assert attributes["Attributes"]["VisibilityTimeout"] == "60"
    assert json.loads(attributes["Attributes"]["RedrivePolicy"]) == {
        "deadLetterTargetArn": dlq["Attributes"]["QueueArn"],
        "maxReceiveCount": 2,
    }
    assert fixture_stack.env["JOBS_QUEUE_URL"].endswith("/postline-local-JobsQueue")


def test_buckets_are_named_in_lower_case(fixture_stack: FixtureStack) -> None:
    assert fixture_stack.env["ARCHIVE_BUCKET"] == "postline-local-archivebucket"
    fixture_stack.client("s3").head_bucket(Bucket="postline-local-archivebucket")


def test_generated_secrets_follow_their_template(fixture_stack: FixtureStack) -> None:
    secretsmanager = fixture_stack.client("secretsmanager")
    value = secretsmanager.get_secret_value(SecretId=fixture_stack.env["SIGNING_SECRET_ID"])["SecretString"]

    secret = json.loads(value)
    assert secret["username"] == "postline"
    assert len(secret["password"]) == 32 and secret["password"].isalnum()


def test_the_environment_resolves_parameters_refs_and_attributes(fixture_stack: FixtureStack) -> None:
    env = fixture_stack.env

    assert env["RECORD_DIR"] == str(fixture_stack.records)
    assert env["ITEMS_TABLE"] == "postline-local-ItemsTable"
    assert env["JOBS_QUEUE_ARN"] == "arn:aws:sqs:us-east-1:123456789012:postline-local-JobsQueue"
    assert env["SIGNING_SECRET_ID"].startswith(
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:postline-local-SigningSecret"
    )
    assert env["POWERTOOLS_LOG_LEVEL"] == "WARNING"
    assert "SMTP_RELAY" not in env  # the fixture template declares no SmtpRelay parameter
