"""The emulator's moto patch (devtools/moto_patches/batch_duplicates.py): BatchWriteItem refuses the
batches moto refuses (two identical requests) and takes the others, without dumping every item."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.dynamodb import responses

from devtools.moto_patches import batch_duplicates
from tests.local.in_process import in_process_client

TABLE = "dups"


@pytest.fixture
def db(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # A table of its own each time: moto's in-process state may be shared with other tests here.
    monkeypatch.setattr(f"{__name__}.TABLE", f"dups-{uuid.uuid4().hex[:8]}")
    batch_duplicates.install()
    try:
        with mock_aws():
            client = in_process_client("dynamodb")
            client.create_table(
                TableName=TABLE,
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
            yield client
    finally:
        batch_duplicates.uninstall()


def _put(item: dict[str, Any]) -> dict[str, Any]:
    return {"PutRequest": {"Item": item}}


def test_identical_requests_are_refused_as_moto_refuses_them(db: Any) -> None:
    item = {"pk": {"S": "a"}, "n": {"N": "1"}, "m": {"M": {"x": {"B": b"\x00"}}}}
    with pytest.raises(ClientError, match="duplicates"):
        db.batch_write_item(RequestItems={TABLE: [_put(item), _put({"pk": {"S": "b"}}), _put(dict(item))]})
    with pytest.raises(ClientError, match="duplicates"):
        db.batch_write_item(RequestItems={TABLE: [{"DeleteRequest": {"Key": {"pk": {"S": "a"}}}}] * 2})


def test_different_requests_are_written(db: Any) -> None:
    items = [{"pk": {"S": f"k{index}"}, "n": {"N": str(index)}} for index in range(25)]
    db.batch_write_item(RequestItems={TABLE: [_put(item) for item in items]})
    assert db.scan(TableName=TABLE)["Count"] == 25
    # The same attributes in another order dump differently: moto writes both (the second wins).
    db.batch_write_item(
        RequestItems={TABLE: [_put({"pk": {"S": "z"}, "n": {"N": "1"}}), _put({"n": {"N": "1"}, "pk": {"S": "z"}})]}
    )


def test_guard() -> None:
    batch_duplicates.check_internals()
    vars(responses)["dynamo_json_dump"] = len
    try:
        with pytest.raises(RuntimeError, match="moto changed how BatchWriteItem finds duplicates"):
            batch_duplicates.check_internals()
    finally:
        batch_duplicates.uninstall()
