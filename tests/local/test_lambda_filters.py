"""The embedded runtime's FilterCriteria: which stream records Lambda would pass to the function."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from devtools.local.lambda_filters import RecordFilter, UnsupportedFilterError
from infra.generate import BASE


def _fan_out_criteria() -> dict[str, Any]:
    """The events table's stream consumer's FilterCriteria, as the template has it."""
    function = yaml.safe_load(BASE.read_text())["Resources"]["WebhookFanoutFunction"]
    criteria: dict[str, Any] = function["Properties"]["Events"]["NewEvents"]["Properties"]["FilterCriteria"]
    return criteria


def _criteria(*patterns: str) -> dict[str, Any]:
    return {"Filters": [{"Pattern": pattern} for pattern in patterns]}


def _record(name: str, pk: str) -> dict[str, Any]:
    """A DynamoDB stream record as Lambda hands it to the function."""
    return {
        "eventID": "1",
        "eventName": name,
        "eventSource": "aws:dynamodb",
        "dynamodb": {
            "Keys": {"pk": {"S": pk}, "sk": {"S": "2026-03-14T12:00:00.000000Z#evt_1"}},
            "NewImage": {"pk": {"S": pk}, "tags": {"L": [{"S": "a"}, {"S": "b"}]}, "n": {"N": "3"}},
            "SequenceNumber": "100",
        },
    }


@pytest.mark.parametrize(
    ("name", "pk", "passes"),
    [
        ("INSERT", "EVT#acct_1#2026-03-14", True),
        ("INSERT", "TAG#acct_1#2026-03-14#weekly", False),
        ("INSERT", "EVT#acct_1#2026-03-14.7", True),  # a shard's events (events/sharding.py)
        ("INSERT", "TAG#acct_1#2026-03-14.7#weekly", False),
        ("INSERT", "SHARDS#acct_1", False),  # the account's shard schedule
        ("MODIFY", "EVT#acct_1#2026-03-14", False),
        ("REMOVE", "EVT#acct_1#2026-03-14", False),
        ("INSERT", "evt#acct_1#2026-03-14", False),  # a prefix is case-sensitive
    ],
)
def test_the_fan_out_sees_inserted_events_only(name: str, pk: str, passes: bool) -> None:
    assert RecordFilter.of(_fan_out_criteria()).passes(_record(name, pk)) is passes


def test_no_criteria_pass_everything() -> None:
    assert RecordFilter.of(None).passes(_record("REMOVE", "x"))
    assert RecordFilter.of({"Filters": []}).passes(_record("REMOVE", "x"))


def test_any_pattern_may_pass_a_record_and_all_its_fields_must_match() -> None:
    either = RecordFilter.of(_criteria('{"eventName": ["REMOVE"]}', '{"eventName": ["MODIFY", "INSERT"]}'))
    assert either.passes(_record("INSERT", "p")) and either.passes(_record("REMOVE", "p"))
    both = RecordFilter.of(_criteria('{"eventName": ["INSERT"], "eventSource": ["aws:sqs"]}'))
    assert not both.passes(_record("INSERT", "p"))


def test_a_missing_field_does_not_match_and_a_list_field_matches_by_element() -> None:
    record = _record("INSERT", "EVT#1")
    assert not RecordFilter.of(_criteria('{"dynamodb": {"OldImage": {"pk": {"S": ["EVT#1"]}}}}')).passes(record)
    assert not RecordFilter.of(_criteria('{"dynamodb": {"Keys": ["x"]}}')).passes(record)  # an object, not a value
    tags = '{"dynamodb": {"NewImage": {"tags": {"L": {"S": ["b"]}}}}}'
    assert RecordFilter.of(_criteria(tags)).passes(record)
    assert not RecordFilter.of(_criteria(tags.replace('["b"]', '["c"]'))).passes(record)
    assert RecordFilter.of(_criteria('{"dynamodb": {"NewImage": {"n": {"N": ["3"]}}}}')).passes(record)
    assert not RecordFilter.of(_criteria('{"dynamodb": {"NewImage": {"n": {"N": [3]}}}}')).passes(record)


@pytest.mark.parametrize(
    "pattern",
    [
        '{"eventName": [{"anything-but": ["REMOVE"]}]}',
        '{"dynamodb": {"Keys": {"pk": {"S": [{"suffix": "#x"}]}}}}',
        '{"n": [{"numeric": [">", 0]}]}',
        '{"pk": [{"exists": true}]}',
        '{"pk": [{"prefix": "a", "suffix": "b"}]}',
        '{"pk": [{"prefix": 1}]}',
        '{"pk": "EVT#"}',
        '{"pk": []}',
        '{"pk": [["nested"]]}',
        '{"$or": [{"a": ["1"]}, {"b": ["2"]}]}',
        "[]",
        "{}",
        "not json",
    ],
)
def test_what_the_runtime_cannot_apply_is_refused_when_the_pumps_are_built(pattern: str) -> None:
    with pytest.raises(UnsupportedFilterError):
        RecordFilter.of(_criteria(pattern))


@pytest.mark.parametrize(
    ("criteria", "inserts_only"),
    [
        (_fan_out_criteria(), True),
        (_criteria('{"eventName": ["INSERT"], "dynamodb": {"Keys": {"sk": {"S": ["MSG"]}}}}'), True),
        (_criteria('{"eventName": ["INSERT"]}', '{"eventName": ["INSERT", "MODIFY"]}'), False),
        (_criteria('{"eventName": ["INSERT"]}', '{"dynamodb": {"Keys": {"pk": {"S": ["a"]}}}}'), False),
        (None, False),  # no criteria: every record passes
    ],
)
def test_a_filter_knows_when_it_passes_inserts_only(criteria: dict[str, Any] | None, inserts_only: bool) -> None:
    """Its pump then waits for the stream's next INSERT, not for any write (devtools/local/pumps.py)."""
    assert RecordFilter.of(criteria).inserts_only is inserts_only
