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
the item grows by one mark (about 40 bytes: `mark_value`) per source partition it counts. Readers skip the marks
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


def mark_value(seq: str) -> str:
    """A sequence number as a mark holds it: its digits after their count (two digits), which
    compares as a string in the order of the numbers, in about half the bytes of the padded form."""
    digits = seq.lstrip("0") or "0"
    return f"{len(digits):02d}{digits}"


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
            client.update_item(**marked_update(table, key, pending, sets=sets, extra_adds=extra_adds))
            return [(partition, seq) for partition, seq, _ in pending]
        except ClientError as error:
            if not conditional_failed(error):
                raise
            pending = unheld(found(client, table, key, error), pending)
    return []


def found(client: Any, table: str, key: dict[str, Any], error: ClientError) -> dict[str, Any]:
    """The item a conditional write failed on: as the failure returned it, else read."""
    old = error.response.get("Item")
    if old is None:
        old = client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item", {})
    return dict(old)


def unheld(item: dict[str, Any], entries: list[Entry]) -> list[Entry]:
    """The entries the item (as stored) does not hold: after its mark of their partition."""
    marks = {partition: item.get(mark_name(partition), {}).get("S", "") for partition, _, _ in entries}
    return [entry for entry in entries if mark_value(entry[1]) > marks[entry[0]]]


def marked_update(
    table: str,
    key: dict[str, Any],
    entries: list[Entry],
    *,
    sets: dict[str, dict[str, Any]] | None = None,
    extra_adds: dict[str, int] | None = None,
    condition: str | None = None,
    names: dict[str, str] | None = None,
    values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The UpdateItem adding the entries and moving the item's marks past them, conditional on the
    marks lying before them (and on `condition`, with its `names` and `values`, when given)."""
    added: dict[str, int] = dict(extra_adds or {})
    spans: dict[str, tuple[str, str]] = {}
    for partition, seq, additions in entries:
        for name, value in additions.items():
            added[name] = added.get(name, 0) + value
        first, last = spans.get(partition, (seq, seq))
        spans[partition] = (min(first, seq), max(last, seq))  # padded: they compare as numbers
    all_names: dict[str, str] = dict(names or {})
    all_values: dict[str, Any] = dict(values or {})
    adds: list[str] = []
    for n, (name, number) in enumerate(sorted(added.items())):
        all_names[f"#a{n}"], all_values[f":a{n}"] = name, {"N": str(number)}
        adds.append(f"#a{n} :a{n}")
    assignments, conditions = [], [condition] if condition else []
    for n, (name, given) in enumerate(sorted((sets or {}).items())):
        all_names[f"#s{n}"], all_values[f":s{n}"] = name, given
        assignments.append(f"#s{n} = :s{n}")
    for n, (partition, (first, last)) in enumerate(sorted(spans.items())):
        all_names[f"#m{n}"] = mark_name(partition)
        all_values[f":f{n}"], all_values[f":l{n}"] = {"S": mark_value(first)}, {"S": mark_value(last)}
        assignments.append(f"#m{n} = :l{n}")
        conditions.append(f"(attribute_not_exists(#m{n}) OR #m{n} < :f{n})")
    expression = (f"ADD {', '.join(adds)} " if adds else "") + f"SET {', '.join(assignments)}"
    return {
        "TableName": table,
        "Key": key,
        "UpdateExpression": expression,
        "ConditionExpression": " AND ".join(conditions),
        "ExpressionAttributeNames": all_names,
        "ExpressionAttributeValues": all_values,
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
