"""`python -m devtools.local` as a user runs it: keys, accepted mail and the DNS zone survive a
restart, Ctrl-C exits cleanly."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import dns.resolver
import pytest

from tests.conftest import Spawn
from tests.e2e.support import Api

pytestmark = pytest.mark.e2e


def test_dev_keys_survive_a_restart_with_the_same_state_dir(spawn: Spawn, tmp_path: Path) -> None:
    with spawn(tmp_path) as first:
        output = "".join(first.output)
        first_dev = first.dev
        assert first.stop() == 0

    with spawn(tmp_path) as second:
        whoami = second.api(first_dev["keys"]["live"]).get("/v3/whoami")
        whoami_test = second.api(first_dev["keys"]["test"]).get("/v3/whoami")
        assert second.stop() == 0

    assert first_dev["keys"]["live"] in output
    assert f'curl -H "Authorization: Bearer {first_dev["keys"]["live"]}"' in output
    assert second.dev["account_id"] == first_dev["account_id"]
    assert second.dev["keys"] == first_dev["keys"]
    assert whoami.status_code == 200, whoami.text
    assert whoami.json()["account"]["id"] == first_dev["account_id"]
    assert whoami_test.json()["api_key"]["environment"] == "test"
    assert second.dev["aws"]["env"]["RESOURCES_TABLE"] == "postline-local-ResourcesTable"
    assert second.output[-1].strip() == "Stopped."


def test_accepted_mail_and_idempotency_keys_survive_a_restart(spawn: Spawn, tmp_path: Path) -> None:
    def scheduled_send(api: Api, key: str) -> Any:
        body = {
            "from": f"Dev <dev@{domain}>",
            "to": ["someone@example.com"],
            "subject": "Across a restart",
            "text": "Kept.",
            "send_at": send_at,
        }
        return api.post("/v3/messages", json=body, headers={"Idempotency-Key": key})

    with spawn(tmp_path) as first:
        domain = first.dev["sending_domain"]["domain"]
        api = first.api(first.dev["keys"]["live"])
        now = datetime.fromisoformat(api.post("/_local/clock/advance", json={"seconds": 0}).json()["now"])
        send_at = (now + timedelta(hours=1)).isoformat()
        accepted = scheduled_send(api, "restart-1")
        assert accepted.status_code == 202, accepted.text
        assert first.stop() == 0

    with spawn(tmp_path) as second:
        api = second.api(second.dev["keys"]["live"])
        message_id = accepted.json()["id"]
        listed = api.get("/v3/messages/scheduled").json()["items"]
        replayed = scheduled_send(api, "restart-1")
        advanced = api.post("/_local/clock/advance", json={"seconds": 3601})
        drained = api.post("/_local/drain", json={"timeout": 60})
        shown = api.get(f"/v3/messages/{message_id}").json()
        mail = api.get("/_local/mailbox").json()["items"]
        assert second.stop() == 0

    assert [item["id"] for item in listed] == [message_id]
    assert replayed.status_code == 202 and replayed.json() == accepted.json()  # the key's record came back
    assert datetime.fromisoformat(advanced.json()["now"]) > now + timedelta(hours=1)
    assert drained.status_code == 200, drained.text
    assert shown["status"] == "delivered", shown
    assert [item["headers"]["Subject"] for item in mail] == ["Across a restart"]
    assert (tmp_path / "emulator.pickle").is_file()


def test_no_persist_starts_empty(spawn: Spawn, tmp_path: Path) -> None:
    with spawn(tmp_path) as first:
        api = first.api(first.dev["keys"]["live"])
        created = api.post("/v3/templates", json={"name": "kept?", "subject": "s", "text_body": "t"})
        assert created.status_code == 201, created.text
        assert first.stop() == 0

    with spawn(tmp_path, "--no-persist") as second:
        templates = second.api(second.dev["keys"]["live"]).get("/v3/templates").json()
        assert second.stop() == 0

    assert templates["items"] == []


def test_records_published_in_the_local_dns_survive_a_restart(spawn: Spawn, tmp_path: Path) -> None:
    published = [
        {"name": "customer.test", "type": "MX", "values": ["10 mx.customer.test"]},
        {"name": "customer.test", "type": "TXT", "values": ["v=spf1 -all", "a" * 300]},
        {"name": "mx.customer.test", "type": "A", "values": ["127.0.0.1"]},
        {"name": "www.customer.test", "type": "CNAME", "values": ["customer.test"]},
    ]
    with spawn(tmp_path) as first:
        for body in published:
            put = first.api().request("PUT", "/_local/dns", json=body)
            assert put.status_code == 200, put.text
        zone = first.api().get("/_local/dns").json()["records"]
        assert first.stop() == 0

    with spawn(tmp_path) as second:
        resolver = dns.resolver.Resolver(configure=False)
        host, port = second.dev["aws"]["env"]["DNS_RESOLVER"].split(":")
        resolver.nameservers, resolver.port = [host], int(port)
        mx = [(r.preference, r.exchange.to_text()) for r in resolver.resolve("customer.test", "MX")]
        txt = sorted(b"".join(r.strings).decode() for r in resolver.resolve("customer.test", "TXT"))
        a = [r.address for r in resolver.resolve("mx.customer.test", "A")]
        cname = [r.target.to_text() for r in resolver.resolve("www.customer.test", "CNAME")]
        zone_after = second.api().get("/_local/dns").json()["records"]
        assert second.stop() == 0

    assert mx == [(10, "mx.customer.test.")]
    assert txt == ["a" * 300, "v=spf1 -all"]
    assert a == ["127.0.0.1"]
    assert cname == ["customer.test."]
    assert zone_after == zone  # the development domain's records too, as they were
