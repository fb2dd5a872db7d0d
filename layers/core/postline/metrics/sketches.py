"""Latency sketches (DDSketch, relative accuracy 1%) kept as bin counts that DynamoDB can ADD.

A sketch is a histogram over logarithmic bins: bin k holds values within 1% of gamma**k. Two
sketches merge by adding their bins' counts, so a roll-up item keeps one number per bin and
quarter, the stream consumer ADDs to them, and a window's quantiles are read from the sum of its
quarters' bins: a merge, never a scan of the events. ddsketch (pinned) maps values to bins and
answers the quantiles.
"""

from __future__ import annotations

from collections.abc import Mapping

from ddsketch import DDSketch
from ddsketch.mapping import LogarithmicMapping

RELATIVE_ACCURACY = 0.01
_MAPPING = LogarithmicMapping(RELATIVE_ACCURACY)  # the same mapping as DDSketch(RELATIVE_ACCURACY)
ZERO = "z"


def bin_of(value_ms: float) -> str:
    """The bin a latency counts in: its key ("412", "m3" below 1 ms), or "z" for (nearly) zero."""
    if value_ms <= _MAPPING.min_possible:
        return ZERO
    key = int(_MAPPING.key(value_ms))
    return f"m{-key}" if key < 0 else str(key)


def _key(bin_name: str) -> int:
    return -int(bin_name[1:]) if bin_name.startswith("m") else int(bin_name)


def sketch_of(bins: Mapping[str, int]) -> DDSketch:
    sketch = DDSketch(RELATIVE_ACCURACY)
    for bin_name, count in bins.items():
        if count <= 0:
            continue
        value = 0.0 if bin_name == ZERO else float(_MAPPING.value(_key(bin_name)))
        sketch.add(value, float(count))
    return sketch


def percentiles(bins: Mapping[str, int], quantiles: tuple[float, ...] = (0.5, 0.95, 0.99)) -> list[int | None]:
    """Milliseconds at each quantile (within 1%), None for an empty sketch."""
    sketch = sketch_of(bins)
    values = [sketch.get_quantile_value(q) for q in quantiles]
    return [None if value is None else round(value) for value in values]
