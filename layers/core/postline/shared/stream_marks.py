"""Exactly-once additions from a DynamoDB stream without a transaction: a mark per item and partition.

Stream records of one partition key arrive in order, one batch at a time, and a failed batch comes
again from its start (shared/stream_watermarks.py). So the records of a source partition added to
one counter item are always a prefix of that partition's records touching it: an item that keeps,
beside its counters, the sequence number of the last record of each partition it added (its mark,
an attribute `W_<hash of the partition>`) knows exactly which of a redelivered batch's records it
holds. Each item's additions from a batch are one UpdateItem that adds them and moves the marks,
conditional on each mark lying before the batch's first record for that item: a replay, a re-batched
redelivery or a crash between two items' writes fails the condition on what was written, and the
write is retried with the records after the stored marks only (the old item comes back with the
failure, ReturnValuesOnConditionCheckFailure).

One write unit per item changed instead of two in a transaction, and no watermark item of its own;
the item grows by one mark (about 55 bytes) per source partition it counts. Readers skip the marks
(`is_mark`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from botocore.exceptions import ClientError

from postline.shared.dynamo import conditional_failed

MARK_PREFIX = "W_"  # counters are lower case: no counter name starts with it

# (source partition, padded sequence number (stream_watermarks.padded), counter -> addition)
Entry = tuple[str, str, dict[str, int]]


def mark_name(partition: str) -> str:
    """The attribute holding an item's mark for one source partition."""
    return MARK_PREFIX + hashlib.sha256(partition.encode()).hexdigest()[:12]


def is_mark(name: str) -> bool:
    return name.startswith(MARK_PREFIX)


def add_once(
    client: Any,
    table: str,
    key: dict[str, Any],
    entries: Iterable[Entry],
    *,
    sets: dict[str, dict[str, Any]] | None = None,
    extra_adds: dict[str, int] | None = None,
) -> list[tuple[str, str]]:
    """Adds to the item the entries it does not hold yet, and sets `sets` (attribute -> value) with
    them; `extra_adds` (e.g. a write count) go with each write that adds anything. Returns the
    (partition, sequence number) of the entries it added (none: the item held them all)."""
    pending = list(entries)
    while pending:
        try:
            client.update_item(**_update(table, key, pending, sets or {}, extra_adds or {}))
            return [(partition, seq) for partition, seq, _ in pending]
        except ClientError as error:
            if not conditional_failed(error):
                raise
            old = error.response.get("Item")
            if old is None:  # not returned: read it
                old = client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item", {})
            marks = {partition: old.get(mark_name(partition), {}).get("S", "") for partition, _, _ in pending}
            pending = [entry for entry in pending if entry[1] > marks[entry[0]]]
    return []


def _update(
    table: str,
    key: dict[str, Any],
    entries: list[Entry],
    sets: dict[str, dict[str, Any]],
    extra_adds: dict[str, int],
) -> dict[str, Any]:
    added: dict[str, int] = dict(extra_adds)
    spans: dict[str, tuple[str, str]] = {}
    for partition, seq, additions in entries:
        for name, value in additions.items():
            added[name] = added.get(name, 0) + value
        first, last = spans.get(partition, (seq, seq))
        spans[partition] = (min(first, seq), max(last, seq))
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    adds: list[str] = []
    for n, (name, number) in enumerate(sorted(added.items())):
        names[f"#a{n}"], values[f":a{n}"] = name, {"N": str(number)}
        adds.append(f"#a{n} :a{n}")
    assignments, conditions = [], []
    for n, (name, given) in enumerate(sorted(sets.items())):
        names[f"#s{n}"], values[f":s{n}"] = name, given
        assignments.append(f"#s{n} = :s{n}")
    for n, (partition, (first, last)) in enumerate(sorted(spans.items())):
        names[f"#m{n}"] = mark_name(partition)
        values[f":f{n}"], values[f":l{n}"] = {"S": first}, {"S": last}
        assignments.append(f"#m{n} = :l{n}")
        conditions.append(f"(attribute_not_exists(#m{n}) OR #m{n} < :f{n})")
    expression = (f"ADD {', '.join(adds)} " if adds else "") + f"SET {', '.join(assignments)}"
    return {
        "TableName": table,
        "Key": key,
        "UpdateExpression": expression,
        "ConditionExpression": " AND ".join(conditions),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
