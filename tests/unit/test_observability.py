"""The Meter port's adapter: counts kept per dimension set, each set published as its own EMF object
when the invocation's metrics are flushed, and nothing (no warning either) when nothing was counted."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from postline.observability import CountingEmfProvider


def printed(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_counts_are_summed_and_published_one_emf_object_per_dimension_set(capsys: pytest.CaptureFixture[str]) -> None:
    emf = CountingEmfProvider(namespace="Test", service="svc")
    emf.count("Sent", 2, mode="live", kind="a")
    emf.count("Sent", kind="a", mode="live")  # the same set, in another order
    emf.count("Failed", 1, kind="a", mode="live")
    emf.count("Sent", 5, mode="test", kind="a")
    emf.flush_metrics()

    first, second = printed(capsys)
    assert first["_aws"]["CloudWatchMetrics"] == [
        {
            "Namespace": "Test",
            "Dimensions": [["kind", "mode", "service"]],
            "Metrics": [{"Name": "Sent", "Unit": "Count"}, {"Name": "Failed", "Unit": "Count"}],
        }
    ]
    assert {k: v for k, v in first.items() if k != "_aws"} == {
        "kind": "a",
        "mode": "live",
        "service": "svc",
        "Sent": [3.0],
        "Failed": [1.0],
    }
    assert (second["mode"], second["Sent"]) == ("test", [5.0])
    emf.flush_metrics()
    assert printed(capsys) == []  # published once


def test_a_flush_with_nothing_counted_prints_nothing_and_does_not_warn(capsys: pytest.CaptureFixture[str]) -> None:
    emf = CountingEmfProvider(namespace="Test", service="svc")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        emf.flush_metrics()
    assert printed(capsys) == []


def test_metrics_added_directly_are_published_as_powertools_does(capsys: pytest.CaptureFixture[str]) -> None:
    emf = CountingEmfProvider(namespace="Test", service="svc")
    emf.add_metric(name="Direct", unit="Count", value=1)
    emf.count("Counted", mode="live")
    emf.flush_metrics()

    blobs = printed(capsys)
    assert [(blob.get("Counted"), blob.get("Direct")) for blob in blobs] == [([1.0], None), (None, [1.0])]
    assert blobs[1]["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]]
