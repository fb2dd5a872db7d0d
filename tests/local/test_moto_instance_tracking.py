"""The emulator's moto patch (devtools/moto_patches/instance_tracking.py): moto's models are no longer
each kept in their class's `instances_tracked` list, so a deleted item, a replaced version or a
trimmed stream record is freed; moto's models are made and behave as before."""

from __future__ import annotations

import gc
import uuid
import weakref

from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import StreamRecord

from devtools.moto_patches import instance_tracking
from tests.aws_stack import InProcessStack


def _tracked(model: type) -> int:
    return len(getattr(model, "instances_tracked"))  # noqa: B009 - moto's metaclass sets it


def test_moto_keeps_every_item_it_builds_and_the_patch_does_not() -> None:
    instance_tracking.uninstall()
    before = _tracked(Item)
    Item(DynamoType({"S": "p"}), None, {"a": {"S": "x"}})
    assert _tracked(Item) == before + 1  # moto's own: kept for the life of the process
    with instance_tracking.installed():
        item = Item(DynamoType({"S": "p"}), None, {"a": {"S": "x"}})
        assert type(item) is Item and item.attrs["a"] == DynamoType({"S": "x"})
        assert _tracked(Item) == before + 1
        gone = weakref.ref(item)
        del item
        gc.collect()
        assert gone() is None


def test_deleted_items_and_their_stream_records_are_freed(stack: InProcessStack) -> None:
    db = stack.client("dynamodb")
    name = f"tracking-{uuid.uuid4().hex[:8]}"
    db.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
    )
    with instance_tracking.installed():
        records_before = _tracked(StreamRecord)
        for n in range(20):
            db.put_item(TableName=name, Item={"pk": {"S": f"p{n}"}, "v": {"N": "1"}})
            db.update_item(
                TableName=name,
                Key={"pk": {"S": f"p{n}"}},
                UpdateExpression="ADD v :one",
                ExpressionAttributeValues={":one": {"N": "1"}},
            )
        table = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].tables[name]
        kept = weakref.ref(table.items[DynamoType({"S": "p0"})])
        for n in range(20):
            db.delete_item(TableName=name, Key={"pk": {"S": f"p{n}"}})
        assert db.scan(TableName=name)["Count"] == 0
        assert table.stream_shard is not None and len(table.stream_shard.items) == 60  # moto's records
        table.stream_shard.items.clear()  # as stream_trims.py trims them
        gc.collect()
        assert kept() is None
        assert _tracked(StreamRecord) == records_before
    db.delete_table(TableName=name)


def test_the_patch_matches_the_pinned_moto() -> None:
    instance_tracking.check_internals()  # raises when moto tracks its instances another way
