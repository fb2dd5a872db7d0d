"""Lambda event filtering (an event source's FilterCriteria) for the embedded runtime's pumps.

Lambda passes a record to the function when any of the filters' patterns matches the record as
the function would receive it, and drops the others. A pattern is a JSON object whose leaves are
lists of what a field may be: exact values, or {"prefix": "..."}; nested objects reach nested
fields, and a field holding a list matches when one of its elements does. Lambda knows more
operators (anything-but, numeric, exists, suffix, ...): a pattern using one is refused when the
pumps are built, rather than passing records Lambda would drop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_SCALARS = (str, int, float, bool, type(None))
_OPERATORS = frozenset({"prefix"})


class UnsupportedFilterError(ValueError):
    """A FilterCriteria the embedded runtime cannot apply as Lambda would."""


@dataclass(frozen=True)
class RecordFilter:
    patterns: tuple[dict[str, Any], ...]  # empty: every record passes

    @classmethod
    def of(cls, criteria: dict[str, Any] | None) -> RecordFilter:
        """From an event's FilterCriteria property ({"Filters": [{"Pattern": "<json>"}, ...]})."""
        patterns: list[dict[str, Any]] = []
        for entry in (criteria or {}).get("Filters") or []:
            text = entry.get("Pattern")
            try:
                pattern = json.loads(text) if isinstance(text, str) else None
            except json.JSONDecodeError as error:
                raise UnsupportedFilterError(f"FilterCriteria pattern is not JSON: {text!r}") from error
            if not isinstance(pattern, dict):
                raise UnsupportedFilterError(f"FilterCriteria pattern {text!r}: expected a JSON object")
            _check(pattern, text)
            patterns.append(pattern)
        return cls(tuple(patterns))

    def passes(self, record: dict[str, Any]) -> bool:
        return not self.patterns or any(_matches(pattern, record) for pattern in self.patterns)

    @property
    def inserts_only(self) -> bool:
        """Whether every record it passes is an INSERT (each pattern asks eventName ["INSERT"])."""
        return bool(self.patterns) and all(pattern.get("eventName") == ["INSERT"] for pattern in self.patterns)


def _check(pattern: dict[str, Any], text: str) -> None:
    if not pattern:
        raise UnsupportedFilterError(f"FilterCriteria pattern {text!r}: an empty object")
    for name, rules in pattern.items():
        if isinstance(rules, dict):
            _check(rules, text)
            continue
        if not isinstance(rules, list) or not rules:
            raise UnsupportedFilterError(f"FilterCriteria pattern {text!r}: {name!r} must be a non-empty list")
        for rule in rules:
            if isinstance(rule, dict):
                if set(rule) - _OPERATORS or len(rule) != 1 or not isinstance(rule.get("prefix"), str):
                    raise UnsupportedFilterError(
                        f"FilterCriteria pattern {text!r}: {rule!r} is not supported by the embedded runtime "
                        f'(only exact values and {{"prefix": "..."}})'
                    )
            elif not isinstance(rule, _SCALARS):
                raise UnsupportedFilterError(f"FilterCriteria pattern {text!r}: {rule!r} is not a value or operator")


def _matches(pattern: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    for name, rules in pattern.items():
        if name not in value:
            return False
        field = value[name]
        candidates = field if isinstance(field, list) else [field]  # a list matches by any element
        if isinstance(rules, dict):
            if not any(_matches(rules, candidate) for candidate in candidates):
                return False
        elif not any(_rule_matches(rule, candidate) for rule in rules for candidate in candidates):
            return False
    return True


def _rule_matches(rule: Any, value: Any) -> bool:
    if isinstance(rule, dict):
        return isinstance(value, str) and value.startswith(rule["prefix"])
    # JSON's values: 1 and 1.0 are one number, true is not 1.
    return bool(rule == value and isinstance(rule, bool) == isinstance(value, bool))
