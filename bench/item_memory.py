"""python -m bench.item_memory --aws URL [--items .local/items.json] | python -m bench.item_memory --items FILE

What a DynamoDB item costs in the emulator's memory, and to build: moto's own `Item`, the one
devtools/moto_patches/moto_items.py built before it was made lean (moto's `DynamoType`s, the size
check linear), and the lean one it builds now.

`--aws URL` first scans up to 200 items of each of the runtime's main tables from a running
emulator (`make run`'s AWS line, or a soak's) into `--items`; without it the file is read. Each
item is decoded from its own JSON text, as each request decodes its own, inside the traced
region: the bytes per item are tracemalloc's count of what the built items keep (their strings
included). The CPU is the best of three passes over 30 copies of the sample, per item built.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

TABLES = ("MessagesTable", "EventsTable", "WebhookDeliveriesTable", "CountersTable")
PREFIX = "postline-local-"


def capture(aws: str, path: Path) -> None:
    import boto3

    dynamodb = boto3.client(
        "dynamodb",
        endpoint_url=aws,
        region_name="us-east-1",
        aws_access_key_id="t",
        aws_secret_access_key="t",  # noqa: S106 - moto takes any
    )
    items = {table: dynamodb.scan(TableName=PREFIX + table, Limit=200)["Items"] for table in TABLES}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(items, default=lambda b: b.decode("latin-1")))


def _key(attrs: dict[str, Any]) -> tuple[Any, Any]:
    from moto.dynamodb.models.dynamo_type import DynamoType

    return DynamoType(attrs["pk"]), DynamoType(attrs["sk"]) if "sk" in attrs else None


def bytes_per_item(items: list[dict[str, Any]]) -> float:
    from moto.dynamodb.models.dynamo_type import Item

    texts = [json.dumps(item) for item in items]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        decoded = [json.loads(text) for text in texts]
        built = [Item(*_key(attrs), attrs) for attrs in decoded]
        del decoded
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del built
    return kept / len(texts)


def cpu_per_item(items: list[dict[str, Any]], copies: int = 30) -> float:
    from moto.dynamodb.models.dynamo_type import Item

    decoded = [json.loads(json.dumps(item)) for item in items] * copies
    best = float("inf")
    for _ in range(3):
        began = time.process_time()
        for attrs in decoded:
            Item(*_key(attrs), attrs)
        best = min(best, (time.process_time() - began) / len(decoded))
    return best


def _before_lean() -> Callable[..., None]:
    """moto_items.py's Item.__init__ before it was made lean (commit 4323a9c)."""
    from moto.dynamodb.exceptions import ItemSizeTooLarge
    from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
    from moto.dynamodb.models.utilities import bytesize

    def init(self: Item, hash_key: Any, range_key: Any, attrs: dict[str, Any]) -> None:
        self.hash_key, self.range_key, self.attrs = hash_key, range_key, LimitedSizeDict()
        total = 0
        for key, value in attrs.items():
            attribute = DynamoType(value)
            added = bytesize(key) + attribute.size()
            if total + added > 405000:
                raise ItemSizeTooLarge
            dict.__setitem__(self.attrs, key, attribute)
            total += added

    return init


def measure(items: dict[str, list[dict[str, Any]]]) -> list[str]:
    from moto.dynamodb.models.dynamo_type import Item

    from devtools.moto_patches import moto_items

    moto_items.uninstall()
    own = Item.__init__
    lines = []
    for label in ("moto's own", "before (linear size check)", "lean (now)"):
        if label.startswith("before"):
            Item.__init__ = _before_lean()  # type: ignore[method-assign]
        elif label.startswith("lean"):
            Item.__init__ = own  # type: ignore[method-assign]
            moto_items.install()
        for table, sample in items.items():
            if sample:
                lines.append(
                    f"{label:28} {table:24} {bytes_per_item(sample):7.0f} B/item"
                    f"  build {cpu_per_item(sample) * 1e6:6.1f} us/item  ({len(sample)} items)"
                )
    moto_items.uninstall()
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.item_memory", description=__doc__.split("\n\n")[1])
    parser.add_argument("--aws", help="a running emulator's URL: scan its tables into --items first")
    parser.add_argument("--items", default=str(Path(".local") / "items.json"), help="(%(default)s)")
    args = parser.parse_args(argv)
    path = Path(args.items)
    if args.aws:
        capture(args.aws, path)
    if not path.is_file():
        parser.error(f"{path} does not exist: capture items with --aws URL first")
    print("\n".join(measure(json.loads(path.read_text()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
