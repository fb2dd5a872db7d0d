"""`python -m devtools.local` as a user runs it: keys, accepted mail, idempotency keys and the DNS
zone survive a restart, Ctrl-C exits cleanly, and --no-persist starts empty.

One state directory goes through three starts (each start is most of these tests' cost): the first
leaves things behind, the second finds them, the third, with --no-persist, finds nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import dns.resolver
import pytest

from tests.conftest import RuntimeProcess, Spawn
from tests.e2e.support import Api

pytestmark = pytest.mark.e2e

PUBLISHED = [
    {"name": "customer.test", "type": "MX", "values": ["10 mx.customer.test"]},
    {"name": "customer.test", "type": "TXT", "values": ["v=spf1 -all", "a" * 300]},
    {"name": "mx.customer.test", "type": "A", "values": ["127.0.0.1"]},
    {"name": "www.customer.test", "type": "CNAME", "values": ["customer.test"]},
]


def scheduled_send(api: Api, domain: str, send_at: str, key: str) -> Any:
    body = {
        "from": f"Dev <dev@{domain}>",
        "to": ["someone@example.com"],
        "subject": "Across a restart",
        "text": "Kept.",
        "send_at": send_at,
    }
    return api.post("/v3/messages", json=body, headers={"Idempotency-Key": key})


def resolved(child: RuntimeProcess) -> dict[str, Any]:
    """What the child's DNS server answers for PUBLISHED."""
    resolver = dns.resolver.Resolver(configure=False)
    host, port = child.dev["aws"]["env"]["DNS_RESOLVER"].split(":")
    resolver.nameservers, resolver.port = [host], int(port)
    return {
        "mx": [(r.preference, r.exchange.to_text()) for r in resolver.resolve("customer.test", "MX")],
        "txt": sorted(b"".join(r.strings).decode() for r in resolver.resolve("customer.test", "TXT")),
        "a": [r.address for r in resolver.resolve("mx.customer.test", "A")],
        "cname": [r.target.to_text() for r in resolver.resolve("www.customer.test", "CNAME")],
    }


def test_state_survives_a_restart_and_no_persist_starts_empty(spawn: Spawn, tmp_path: Path) -> None:
    with spawn(tmp_path) as first:
        output = "".join(first.output)
        first_dev = first.dev
        domain = first.dev["sending_domain"]["domain"]
        api = first.api(first.dev["keys"]["live"])
        now = datetime.fromisoformat(api.post("/_local/clock/advance", json={"seconds": 0}).json()["now"])
        send_at = (now + timedelta(hours=1)).isoformat()
        accepted = scheduled_send(api, domain, send_at, "restart-1")
        assert accepted.status_code == 202, accepted.text
        template = api.post("/v3/templates", json={"name": "kept?", "subject": "s", "text_body": "t"})
        assert template.status_code == 201, template.text
        for body in PUBLISHED:
            put = first.api().request("PUT", "/_local/dns", json=body)
            assert put.status_code == 200, put.text
        zone = first.api().get("/_local/dns").json()["records"]
        assert first.stop() == 0

    with spawn(tmp_path) as second:
        whoami = second.api(first_dev["keys"]["live"]).get("/v3/whoami")
        whoami_test = second.api(first_dev["keys"]["test"]).get("/v3/whoami")
        answers = resolved(second)
        zone_after = second.api().get("/_local/dns").json()["records"]
        api = second.api(second.dev["keys"]["live"])
        message_id = accepted.json()["id"]
        listed = api.get("/v3/messages/scheduled").json()["items"]
        replayed = scheduled_send(api, domain, send_at, "restart-1")
        advanced = api.post("/_local/clock/advance", json={"seconds": 3601})
        drained = api.post("/_local/drain", json={"timeout": 60})
        shown = api.get(f"/v3/messages/{message_id}").json()
        mail = api.get("/_local/mailbox").json()["items"]
        assert second.stop() == 0

    # The development keys and account, printed with a curl line at the first start, come back.
    assert first_dev["keys"]["live"] in output
    assert f'curl -H "Authorization: Bearer {first_dev["keys"]["live"]}"' in output
    assert second.dev["account_id"] == first_dev["account_id"]
    assert second.dev["keys"] == first_dev["keys"]
    assert whoami.status_code == 200, whoami.text
    assert whoami.json()["account"]["id"] == first_dev["account_id"]
    assert whoami_test.json()["api_key"]["environment"] == "test"
    assert second.dev["aws"]["env"]["RESOURCES_TABLE"] == "postline-local-ResourcesTable"
    assert second.output[-1].strip() == "Stopped."
    # The accepted mail and its idempotency key's record.
    assert [item["id"] for item in listed] == [message_id]
    assert replayed.status_code == 202 and replayed.json() == accepted.json()
    assert datetime.fromisoformat(advanced.json()["now"]) > now + timedelta(hours=1)
    assert drained.status_code == 200, drained.text
    assert shown["status"] == "delivered", shown
    assert [item["headers"]["Subject"] for item in mail] == ["Across a restart"]
    assert (tmp_path / "emulator.pickle").is_file()
    # The DNS zone, served as published (the development domain's records too, as they were).
    assert answers == {
        "mx": [(10, "mx.customer.test.")],
        "txt": ["a" * 300, "v=spf1 -all"],
        "a": ["127.0.0.1"],
        "cname": ["customer.test."],
    }
    assert zone_after == zone

    with spawn(tmp_path, "--no-persist") as third:
        templates = third.api(third.dev["keys"]["live"]).get("/v3/templates").json()
        assert third.stop() == 0
    assert templates["items"] == []
