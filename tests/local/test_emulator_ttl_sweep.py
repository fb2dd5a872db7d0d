"""The emulator's Time to Live (devtools/moto_patches/ttl_sweep.py): an item whose TTL is past on the
runtime's clock is deleted as DynamoDB deletes it, its REMOVE record on the stream carries the
service's identity, the stream consumers do not take it for an event, and other items stay.

Against a real emulator child: its HTTP server, moto's tables and streams, the patches as installed.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import urllib3
import yaml

from devtools.local import provisioning
from devtools.local.emulator import TTL_SWEEP_PATH, Emulator
from devtools.local.lambda_filters import RecordFilter
from devtools.moto_patches import ttl_sweep
from postline.events.store import _inserted_events
from tests.aws_stack import InProcessStack

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
SERVICE = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


class Table:
    def __init__(self, emulator: Emulator, view: str = "NEW_IMAGE", ttl: bool = True) -> None:
        self.emulator = emulator
        self.name = f"ttl-{uuid.uuid4().hex[:8]}"
        self.db = emulator.client("dynamodb")
        self.streams = emulator.client("dynamodbstreams")
        self.arn = self.db.create_table(
            TableName=self.name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": view},
        )["TableDescription"]["LatestStreamArn"]
        if ttl:
            self.db.update_time_to_live(
                TableName=self.name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"}
            )
        shards = self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
        self.iterator = self.streams.get_shard_iterator(
            StreamArn=self.arn, ShardId=shards[0]["ShardId"], ShardIteratorType="LATEST"
        )["ShardIterator"]

    def put(self, pk: str, expires_at: dict[str, Any] | None) -> None:
        item = {"pk": {"S": pk}, "sk": {"S": "EVT"}, "body": {"S": "x" * 100}}
        if expires_at is not None:
            item["expires_at"] = expires_at
        self.db.put_item(TableName=self.name, Item=item)

    def has(self, pk: str) -> bool:
        return "Item" in self.db.get_item(TableName=self.name, Key={"pk": {"S": pk}, "sk": {"S": "EVT"}})

    def records(self) -> list[dict[str, Any]]:
        """The stream's records since the last call, in the form Lambda delivers them."""
        page = self.emulator.stream_records(self.iterator, 1000)
        self.iterator = page["NextShardIterator"]
        records: list[dict[str, Any]] = page["Records"]
        return records


def _sweep(emulator: Emulator) -> dict[str, Any]:
    answer = urllib3.request("POST", emulator.endpoint_url + TTL_SWEEP_PATH, timeout=30)
    assert answer.status == 200
    swept: dict[str, Any] = json.loads(answer.data)
    return swept


def _due(emulator: Emulator) -> bool:
    answer = urllib3.request("GET", emulator.endpoint_url + TTL_SWEEP_PATH, timeout=30)
    assert answer.status == 200
    due: bool = json.loads(answer.data)["due"]
    return due


def _epoch(at: datetime) -> dict[str, str]:
    return {"N": str(int(at.timestamp()))}


def _clock_at_least(emulator: Emulator, at: datetime) -> datetime:
    """Moves the emulator's clock to `at` (it never moves back: tests in this module share it)."""
    emulator.set_clock(at)
    return at


def test_an_item_past_its_ttl_on_the_moved_clock_is_deleted_and_the_others_stay(emulator: Emulator) -> None:
    table = Table(emulator)
    now = datetime.now(UTC) + timedelta(days=1)
    _clock_at_least(emulator, now)
    table.put("soon", _epoch(now + timedelta(hours=1)))
    table.put("later", _epoch(now + timedelta(days=30)))
    table.put("text", {"S": str(int((now - timedelta(days=1)).timestamp()))})  # not a Number: never expires
    table.put("ancient", _epoch(now - timedelta(days=6 * 365)))  # more than five years past: DynamoDB keeps it
    table.put("none", None)
    assert _sweep(emulator)["deleted"] == 0
    assert table.has("soon")  # not yet past
    assert _due(emulator) is False  # what the emulator's sweeper asks first, around its snapshot gate

    _clock_at_least(emulator, now + timedelta(days=2))
    deadline = time.monotonic() + 30  # the emulator's sweeper runs once the clock moves
    while table.has("soon") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not table.has("soon")
    assert all(table.has(pk) for pk in ("later", "text", "ancient", "none"))
    assert _sweep(emulator) == {"deleted": 0, "more": False}


def test_the_deletion_is_a_remove_record_with_the_service_identity(emulator: Emulator) -> None:
    table = Table(emulator, view="NEW_AND_OLD_IMAGES")
    now = _clock_at_least(emulator, datetime.now(UTC) + timedelta(days=10))
    table.put("gone", _epoch(now - timedelta(seconds=1)))
    assert _due(emulator) or not table.has("gone")  # due, unless the sweeper has already run
    table.put("user", None)
    table.db.delete_item(TableName=table.name, Key={"pk": {"S": "user"}, "sk": {"S": "EVT"}})
    _sweep(emulator)
    records = table.records()
    removes = {r["dynamodb"]["Keys"]["pk"]["S"]: r for r in records if r["eventName"] == "REMOVE"}
    assert sorted(removes) == ["gone", "user"]  # in either order: the emulator's sweeper runs too
    user, expired = removes["user"], removes["gone"]
    assert "userIdentity" not in user  # a user's deletion carries none
    assert expired["userIdentity"] == SERVICE
    assert expired["dynamodb"]["OldImage"]["pk"] == {"S": "gone"}
    assert "NewImage" not in expired


def test_no_stream_consumer_takes_a_ttl_removal_for_an_event(emulator: Emulator) -> None:
    table = Table(emulator)  # NEW_IMAGE, as the events table's stream
    now = _clock_at_least(emulator, datetime.now(UTC) + timedelta(days=20))
    table.put("EVT#acct#1", _epoch(now - timedelta(seconds=1)))
    _sweep(emulator)
    records = table.records()
    assert [r["eventName"] for r in records] == ["INSERT", "REMOVE"]
    removal = records[1]
    assert removal["userIdentity"] == SERVICE and "NewImage" not in removal["dynamodb"]
    template = yaml.load(TEMPLATE.read_text(), Loader=yaml.BaseLoader)  # noqa: S506 - its tags read as text
    consumers = [
        (event["Properties"]["Stream"]["Fn::GetAtt"][0], event["Properties"]["FilterCriteria"])
        for resource in template["Resources"].values()
        if resource.get("Type") == "AWS::Serverless::Function"
        for event in resource.get("Properties", {}).get("Events", {}).values()
        if event.get("Type") == "DynamoDB"
    ]
    # Every stream consumer of the template filters its records: the events table's three, the
    # messages table's outbox.
    assert sorted(table for table, _ in consumers) == ["EventsTable"] * 3 + ["MessagesTable"]
    for table, criteria in consumers:
        assert RecordFilter.of(criteria).passes(records[0]) is (table == "EventsTable")
        assert not RecordFilter.of(criteria).passes(removal)
    assert _inserted_events([removal]) == []  # the consumers' own check, where no filter applies


def test_a_table_without_ttl_keeps_its_items(emulator: Emulator) -> None:
    table = Table(emulator, ttl=False)
    now = _clock_at_least(emulator, datetime.now(UTC) + timedelta(days=30))
    table.put("kept", _epoch(now - timedelta(days=1)))
    _sweep(emulator)
    assert table.has("kept")


def test_s3_objects_past_their_lifecycle_expiration_are_deleted(emulator: Emulator) -> None:
    s3 = emulator.client("s3")
    bucket = f"lifecycle-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_lifecycle_configuration(  # as the template's exports bucket
        Bucket=bucket,
        LifecycleConfiguration={
            "Rules": [
                {"ID": "exports", "Status": "Enabled", "Prefix": "exports/", "Expiration": {"Days": 7}},
                {"ID": "off", "Status": "Disabled", "Filter": {"Prefix": "paused/"}, "Expiration": {"Days": 1}},
                {"ID": "filtered", "Status": "Enabled", "Filter": {"Prefix": "imports/"}, "Expiration": {"Days": 2}},
            ]
        },
    )
    now = _clock_at_least(emulator, datetime.now(UTC) + timedelta(days=50))
    for key in ("exports/a.csv", "imports/b.csv", "paused/c.csv", "other/d.csv"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"x" * 100)

    def kept() -> list[str]:
        return sorted(item["Key"] for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []))

    _clock_at_least(emulator, now + timedelta(days=4))
    _sweep(emulator)
    assert kept() == ["exports/a.csv", "other/d.csv", "paused/c.csv"]  # imports/: 2 days, to the next midnight
    _clock_at_least(emulator, now + timedelta(days=8))
    _sweep(emulator)
    assert kept() == ["other/d.csv", "paused/c.csv"]


def test_a_sweep_deletes_a_bounded_number_and_says_more_are_due(stack: InProcessStack) -> None:
    db = stack.client("dynamodb")
    name = f"ttl-{uuid.uuid4().hex[:8]}"
    db.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    db.update_time_to_live(TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"})
    for n in range(25):
        db.put_item(TableName=name, Item={"pk": {"S": f"p{n}"}, "expires_at": {"N": str(1_000_000 + n)}})
    with ttl_sweep.installed():
        assert ttl_sweep.sweep(now=1_000_010, limit=4) == (4, True)  # ten are past, four a call
        assert ttl_sweep.sweep(now=1_000_010, limit=4) == (4, True)
        assert ttl_sweep.sweep(now=1_000_010, limit=4) == (2, False)
    kept = sorted(item["pk"]["S"] for item in db.scan(TableName=name)["Items"])
    assert kept == sorted(f"p{n}" for n in range(10, 25))
    db.delete_table(TableName=name)


def test_the_ttl_sweep_matches_the_pinned_moto() -> None:
    ttl_sweep.check_internals()


def test_the_runtime_gives_buckets_the_template_s_lifecycle_rules(stack: InProcessStack) -> None:
    template = yaml.load(TEMPLATE.read_text(), Loader=yaml.BaseLoader)  # noqa: S506 - its tags read as text
    [(logical_id, bucket)] = [
        (name, resource)
        for name, resource in template["Resources"].items()
        if resource.get("Type") == "AWS::S3::Bucket" and "LifecycleConfiguration" in resource["Properties"]
    ]
    props = {**bucket["Properties"], "BucketName": f"lifecycle-{uuid.uuid4().hex[:8]}"}
    deployed = provisioning._bucket(stack.client, logical_id, props)
    rules = stack.client("s3").get_bucket_lifecycle_configuration(Bucket=deployed.ref)["Rules"]
    expected = {rule["Id"]: rule for rule in props["LifecycleConfiguration"]["Rules"]}
    assert sorted(rule["ID"] for rule in rules) == sorted(expected)
    for rule in rules:
        source = expected[rule["ID"]]
        assert rule["Filter"]["Prefix"] == source["Prefix"] and rule["Status"] == source["Status"]
        assert rule.get("Expiration", {}).get("Days") == (
            int(source["ExpirationInDays"]) if "ExpirationInDays" in source else None
        )
