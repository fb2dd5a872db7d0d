"""The emulator's snapshot brings back what the service keeps in AWS: items, queued and in-flight
messages, objects, secrets and KMS keys that still decrypt what they encrypted."""

from __future__ import annotations

from pathlib import Path

import pytest

from devtools.local.emulator import Emulator

pytestmark = pytest.mark.e2e


def test_a_restarted_emulator_has_what_it_had_at_its_snapshot(tmp_path: Path) -> None:
    state = tmp_path / "emulator.pickle"
    first = Emulator(port=0, state_file=state)
    first.start()
    try:
        assert first.restored() is None
        dynamodb, sqs, kms = first.client("dynamodb"), first.client("sqs"), first.client("kms")
        dynamodb.create_table(
            TableName="things",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        dynamodb.put_item(TableName="things", Item={"pk": {"S": "idem#key-1"}, "status": {"S": "COMPLETED"}})
        queue = sqs.create_queue(QueueName="send")["QueueUrl"]
        sqs.send_message(QueueUrl=queue, MessageBody="one")
        sqs.send_message(QueueUrl=queue, MessageBody="two")
        held = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=1, VisibilityTimeout=3600)["Messages"]
        assert len(held) == 1  # in flight for an hour when the snapshot is taken
        key = kms.create_key()["KeyMetadata"]["KeyId"]
        sealed = kms.encrypt(KeyId=key, Plaintext=b"content key")["CiphertextBlob"]
        signing = kms.create_key(KeySpec="RSA_2048", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
        first.client("s3").create_bucket(Bucket="content")
        first.client("s3").put_object(Bucket="content", Key="m/1", Body=b"body")
        first.snapshot({"stack": {"Things": {"ref": "things", "attributes": {}}}})
    finally:
        first.stop()

    second = Emulator(port=0, state_file=state)
    second.start()
    try:
        sqs = second.client("sqs")
        assert second.restored() == {"stack": {"Things": {"ref": "things", "attributes": {}}}}
        item = second.client("dynamodb").get_item(TableName="things", Key={"pk": {"S": "idem#key-1"}})["Item"]
        assert item["status"] == {"S": "COMPLETED"}
        queue = sqs.get_queue_url(QueueName="send")["QueueUrl"]
        bodies = {m["Body"] for m in sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]}
        # The consumer that held one stopped with the emulator: it is visible again, not hidden an hour.
        assert bodies == {"one", "two"}
        assert second.client("kms").decrypt(CiphertextBlob=sealed)["Plaintext"] == b"content key"
        signature = second.client("kms").sign(
            KeyId=signing, Message=b"m", SigningAlgorithm="RSASSA_PKCS1_V1_5_SHA_256"
        )["Signature"]
        assert signature
        assert second.client("s3").get_object(Bucket="content", Key="m/1")["Body"].read() == b"body"
    finally:
        second.stop()


def test_an_unreadable_snapshot_is_set_aside_and_the_emulator_starts_empty(tmp_path: Path) -> None:
    state = tmp_path / "emulator.pickle"
    state.write_bytes(b"not a pickle")
    emulator = Emulator(port=0, state_file=state)
    emulator.start()
    try:
        assert emulator.restored() is None
        assert emulator.client("sqs").list_queues().get("QueueUrls", []) == []
    finally:
        emulator.stop()
    assert (tmp_path / "emulator.unreadable").read_bytes() == b"not a pickle"
