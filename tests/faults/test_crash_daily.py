"""A crash at every AWS call of the daily workers, and a transient AWS error at each: the day's pass
deletes (or packs) exactly what it should, whatever run dies where (tests/faults/crash.py).

Their workloads move the clock by days, which must not age the data of the tests sharing the
session's runtime: they run in a child runtime of their own (tests/faults/child.py), struck through
a file (ChildFault). A daily run that dies is not retried locally (the runtime does not emulate
Lambda's asynchronous retries): the next day's run is its redelivery, and each pass is written to
go on where a run stopped (retention/service.py, metrics/packing.py).
- RetentionFunction: on Free (30 days), a message 31 days old is gone with its events, one 11 days
  old is kept with all of its.
- MetricsPackingFunction: two sends counted, three days on (closed days packed), the summary and
  hourly series read exactly as before, and `postline metrics pack` finds nothing left to pack.
- SigningKeyRotationFunction: 91 days on, the key that signed is replaced by exactly one new key and
  both are published; 8 days later the old one is gone from what is published and what is stored.
- DomainCheckFunction (every 5 minutes, a domain due a day after its last check; the next run is
  the redelivery): a verified domain whose SPF record went is checked once a day on: still
  verified in its grace, spf false, one `domain.record_lost` audit entry and one warning to its owner.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests

from tests.conftest import Spawn
from tests.e2e.support import Api
from tests.e2e.test_domains import create, publish, verify
from tests.e2e.test_metrics_packing import _figures
from tests.e2e.test_retention import DAY, Child
from tests.faults.crash import ChildFault, Fault, sweep
from tests.support import eventually

pytestmark = pytest.mark.e2e


@dataclass
class Daily:
    child: Child
    fault_file: Path

    def settle(self, days: float) -> None:
        self.child.advance(days * DAY)
        self.child.drain()

    def arm(self, function: str, k: int, fault: Fault) -> ChildFault:
        return ChildFault(self.fault_file, function, k, fault)

    def published_keys(self) -> list[str]:
        """The kids GET /.well-known/svc/keys lists, newest first."""
        keys = requests.get(f"{self.child.process.dev['base_url']}/.well-known/svc/keys", timeout=30).json()["keys"]
        return [key["kid"] for key in keys]

    def stored_keys(self) -> set[str]:
        """The kids of the signing keys the child's resources table holds."""
        aws = self.child.process.dev["aws"]
        db = boto3.client(
            "dynamodb", endpoint_url=aws["endpoint_url"], region_name=aws["region"],
            aws_access_key_id="testing", aws_secret_access_key="testing",
        )  # fmt: skip
        items = db.query(
            TableName=aws["env"]["RESOURCES_TABLE"],
            KeyConditionExpression="pk = :pk AND begins_with(sk, :keys)",
            ExpressionAttributeValues={":pk": {"S": "PLATFORM"}, ":keys": {"S": "SIGNKEY#"}},
        )["Items"]
        return {item["sk"]["S"].removeprefix("SIGNKEY#") for item in items}

    def owner_api(self) -> tuple[Api, str]:
        """A live key of an account with an owner email (the dev account has none), made once."""
        if self._owner is None:
            owner = "owner@checks.example"
            account = self.child.cli("account", "create", "--name", "checks", "--plan", "professional",
                                     "--owner-email", owner)  # fmt: skip
            key = self.child.cli("key", "create", account["id"], "--env", "live")["key"]
            self._owner = (self.child.process.api(key), owner)
        return self._owner

    _owner: tuple[Api, str] | None = None


@pytest.fixture(scope="module")
def daily(spawn: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daily]:
    state_dir: Path = tmp_path_factory.mktemp("faults-daily-state")
    fault_file = state_dir.parent / f"{state_dir.name}-fault.json"
    with spawn(state_dir, "--fault-file", str(fault_file), module="tests.faults.child") as process:
        child = Child(process)
        assert child.cli("account", "set-plan", child.account_id, "free")["plan"] == "free"
        yield Daily(child, fault_file)


def retention(daily: Daily, case: str) -> None:
    old = daily.child.send()
    daily.settle(20)  # a run with nothing to delete yet
    kept = daily.child.send()
    kept_history = daily.child.history(kept)
    daily.settle(11)  # `old` is 31 days old (and the downgrade's grace over): this run deletes it
    daily.settle(1)  # the next day's run goes on where a run that died stopped
    assert daily.child.history(old) == (404, 0), f"{case}: {old} kept"
    assert daily.child.history(kept) == kept_history, f"{case}: {kept} not kept whole"


def packing(daily: Daily, case: str) -> None:
    moved = daily.child.control.post("/_local/clock/advance", json={"seconds": 0})
    now = datetime.fromisoformat(moved.json()["now"])
    since = (now - timedelta(days=1)).astimezone(UTC).isoformat()
    daily.child.send()
    daily.child.send()

    def counted() -> dict[str, Any]:
        figures = _figures(daily.child, since)
        assert figures["delivery"]["sent"] == 2 and figures["delivery"]["delivered"] == 2, figures
        return figures

    before = eventually(counted, 20, waiting_for=f"{case}: both sends to be counted")
    daily.settle(3)  # the closed days are packed
    daily.settle(1)  # the next day's run goes on where a run that died stopped
    assert _figures(daily.child, since) == before, case
    rerun = daily.child.cli("metrics", "pack", daily.child.account_id)
    assert rerun["series"] == 0, f"{case}: the schedule left {rerun} to pack"


def signing_key_rotation(daily: Daily, case: str) -> None:
    signing = daily.published_keys()[0]  # the active key (the first GET mints it)
    daily.settle(91)  # past the 90 days: the daily run replaces it
    daily.settle(1)  # the next day's run goes on where a run that died stopped
    published = daily.published_keys()
    assert len(published) == 2 and published[1] == signing, f"{case}: published {published} after {signing}"
    daily.settle(8)  # past the replaced key's 7 days of grace: the daily run drops it
    daily.settle(1)
    assert daily.published_keys() == published[:1], f"{case}: published {daily.published_keys()}"
    assert daily.stored_keys() == set(published[:1]), f"{case}: stored {daily.stored_keys()}"


def domain_check(daily: Daily, case: str) -> None:
    api, owner = daily.owner_api()
    domain = create(api, f"checks-{uuid.uuid4().hex[:10]}.test")
    publish(api, domain, "dkim", "spf", "return_path_mx", "tracking")
    assert verify(api, domain)["status"] == "verified", case
    publish(api, domain, "spf", values=[])  # the SPF record goes
    daily.settle(1 + 300 / DAY)  # its next check is due a day after the last
    daily.settle(301 / DAY)  # the next run (every 5 minutes) goes on where a run that died stopped
    checked = api.get(f"/v3/domains/{domain['id']}").json()
    assert (checked["status"], checked["spf"], checked["dkim"]) == ("verified", False, True), f"{case}: {checked}"
    audit = api.get("/v3/audit", params={"per_page": 100}).json()["items"]
    lost = [entry["action"] for entry in audit if entry["target"] == domain["id"] and "lost" in entry["action"]]
    assert lost == ["domain.record_lost"], f"{case}: {lost}"
    mails = daily.child.control.get("/_local/mailbox").json()["items"]
    warnings = [m for m in mails if owner in m["rcpt_tos"] and domain["domain"] in m["headers"]["Subject"]]
    assert len(warnings) == 1, f"{case}: {len(warnings)} warnings to the owner"
    # Gone, so that the next run's checks are the same: the dev account's domain, then this one.
    assert api.delete(f"/v3/domains/{domain['id']}").status_code in (200, 204), case


WORKLOADS: dict[str, Callable[[Daily, str], None]] = {
    "DomainCheckFunction": domain_check,
    "MetricsPackingFunction": packing,
    "RetentionFunction": retention,
    "SigningKeyRotationFunction": signing_key_rotation,
}


@pytest.mark.parametrize("worker", sorted(WORKLOADS))
def test_a_fault_at_every_call_of_a_daily_worker_deletes_and_packs_exactly(daily: Daily, worker: str) -> None:
    sweep(worker, lambda case: WORKLOADS[worker](daily, case), daily.arm)
