"""Metrics as a deployed function publishes them: CloudWatch embedded metric format (EMF), one JSON
object per line on stdout, printed by `@metrics.log_metrics` as the invocation ends."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from postline.observability import metrics
from tests.handlers.conftest import Invoke


def emf(output: str) -> list[dict[str, Any]]:
    """The EMF objects among the lines a function printed."""
    blobs = []
    for line in output.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            blob = json.loads(line)
            if "CloudWatchMetrics" in blob["_aws"]:
                blobs.append(blob)
    return blobs


def published(blobs: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [
        blob
        for blob in blobs
        if any(m["Name"] == name for d in blob["_aws"]["CloudWatchMetrics"] for m in d["Metrics"])
    ]


@pytest.fixture
def stdout(capsys: pytest.CaptureFixture[str]) -> pytest.CaptureFixture[str]:
    """stdout from here on: what other tests of this process counted and never published
    (services called without a function around them) is published and dropped first."""
    metrics.flush_metrics()
    capsys.readouterr()
    return capsys


def test_a_send_publishes_its_accepted_message_and_recipient(
    invoke: Invoke, stdout: pytest.CaptureFixture[str]
) -> None:
    response = invoke("send_message")
    assert response["statusCode"] == 202

    (blob,) = published(emf(stdout.readouterr().out), "MessagesAccepted")
    assert blob["_aws"]["CloudWatchMetrics"] == [
        {
            "Namespace": "Postline",
            "Dimensions": [["mode", "send", "service"]],
            "Metrics": [{"Name": "MessagesAccepted", "Unit": "Count"}, {"Name": "RecipientsAccepted", "Unit": "Count"}],
        }
    ]
    assert (blob["service"], blob["send"], blob["mode"]) == ("postline", "single", "live")
    assert (blob["MessagesAccepted"], blob["RecipientsAccepted"]) == ([1.0], [1.0])

    replay = invoke("send_message")  # the same Idempotency-Key: the first answer, not a second send
    assert replay["body"] == response["body"]
    assert published(emf(stdout.readouterr().out), "MessagesAccepted") == []


def test_an_invocation_that_counted_nothing_does_not_warn(invoke: Invoke) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        response = invoke("whoami")

    assert response["statusCode"] == 200
    assert [str(warning.message) for warning in caught if "metrics" in str(warning.message).lower()] == []
