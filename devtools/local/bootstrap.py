"""The development account: created at every start, with the same id and keys as last time.

moto keeps everything in memory, so each start re-creates the account and its two keys from
`<state dir>/dev.json` (or makes new ones the first time) and rewrites the file with this
start's addresses. Keys therefore survive restarts, and scripts can read dev.json.

The account also gets the sending domain postline.test, created through the domains service
like any other, with a DKIM key kept in `<state dir>/dkim-private.pem`: its records are published
in the runtime's own DNS server and checked there, so it starts verified. dev.json's
`sending_domain` repeats the DKIM record, for receivers (and tests) with a DNS of their own.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pydantic import BaseModel

from devtools.local.dns_server import MX, TXT, DnsServer, Record
from postline.accounts.domain import Plan
from postline.audit.domain import Actor
from postline.domains.dkim_keys import key_pair
from postline.domains.dns import DnsRecordLookup
from postline.domains.domain import DomainStatus, RecordType
from postline.domains.models import DomainCreate
from postline.keys.access import Environment
from postline.wiring import accounts, domains
from postline.wiring import operator as operator_root

DEV_FILE = "dev.json"
DKIM_KEY_FILE = "dkim-private.pem"
ACCOUNT_NAME = "Development"
SENDING_DOMAIN = "postline.test"


class DevKeys(BaseModel):
    live: str
    test: str


class AwsTarget(BaseModel):
    endpoint_url: str
    region: str
    env: dict[str, str]  # the functions' resolved environment


class DevSendingDomain(BaseModel):
    domain: str
    dkim_selector: str
    dkim_record: str  # the DNS name of the DKIM TXT record
    dkim_txt: str  # its value


class DevState(BaseModel):
    base_url: str
    account_id: str | None  # None when the runtime was started without a dev account
    keys: DevKeys | None
    sending_domain: DevSendingDomain | None = None
    aws: AwsTarget


def previous_state(state_dir: Path) -> DevState | None:
    path = state_dir / DEV_FILE
    if not path.exists():
        return None
    try:
        return DevState.model_validate_json(path.read_text())
    except ValueError as error:
        raise ValueError(f"{path} is not a dev.json this runtime wrote; delete it to start afresh") from error


def seed_dev_account(previous: DevState | None) -> tuple[str, DevKeys]:
    """Creates the development account (plan professional) and a full-access live and test key;
    an emulator restored from a snapshot has them already (from the start that wrote dev.json)."""
    operator = operator_root.operator_service()
    if previous and previous.keys and accounts.account_store().get_account(previous.account_id or "") is not None:
        return str(previous.account_id), previous.keys
    account = operator.create_account(
        name=ACCOUNT_NAME,
        plan=Plan.PROFESSIONAL,
        account_id=previous.account_id if previous else None,
    )
    secrets = {}
    for env in (Environment.LIVE, Environment.TEST):
        known = getattr(previous.keys, env.value) if previous and previous.keys else None
        created = operator.create_key(account.id, name=f"{ACCOUNT_NAME} ({env.value})", env=env, secret=known)
        secrets[env.value] = created.key
    return account.id, DevKeys.model_validate(secrets)


class _KeptKey:
    """The DkimKeys port over the key kept in the state dir: receivers that cached it keep verifying."""

    def __init__(self, state_dir: Path) -> None:
        self._file = state_dir / DKIM_KEY_FILE

    def new_key(self) -> tuple[str, str]:
        if not self._file.exists():
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self._file.parent.mkdir(parents=True, exist_ok=True)
            self._file.write_text(key_pair(key)[0])
            self._file.chmod(0o600)
        private_key = serialization.load_pem_private_key(self._file.read_bytes(), password=None)
        assert isinstance(private_key, rsa.RSAPrivateKey)
        return key_pair(private_key)


def _record(record_type: RecordType, value: str) -> Record:
    if record_type is RecordType.MX:
        preference, _, exchange = value.partition(" ")
        return MX(int(preference), exchange)
    return TXT(value)


def seed_sending_domain(state_dir: Path, account_id: str, dns: DnsServer) -> DevSendingDomain:
    """postline.test for the account: created through the domains service (unless a restored
    emulator holds it), its records (a DMARC policy too) published in the runtime's DNS server,
    then checked there, so it is verified."""
    account = accounts.account_store().get_account(account_id)
    assert account is not None
    service = domains.domain_service(keys=_KeptKey(state_dir), lookup=DnsRecordLookup(dns.address))
    # A restored emulator has it from an earlier start, and the restored zone its records: they are
    # published again all the same (a snapshot from before the zone was kept, records edited since).
    existing = [d for d in domains.sending_domains().list_domains(account_id) if d.domain == SENDING_DOMAIN]
    domain = existing[0] if existing else service.add(account, DomainCreate(domain=SENDING_DOMAIN), Actor.system())
    for record in domain.records:
        if record.type is not RecordType.CNAME:
            dns.replace_type(record.host, record.type.value, _record(record.type, record.value))
    checked = service.recheck(account_id, domain.id)
    if checked.status is not DomainStatus.VERIFIED:
        raise RuntimeError(f"{SENDING_DOMAIN} did not verify against the runtime's DNS: {checked.records}")
    dkim = checked.records[0]
    return DevSendingDomain(
        domain=SENDING_DOMAIN, dkim_selector=checked.dkim_selector, dkim_record=dkim.host, dkim_txt=dkim.value
    )


def save_state(state_dir: Path, state: DevState) -> None:
    """Written whole and then renamed, readable by the owner only: it holds live keys."""
    state_dir.mkdir(parents=True, exist_ok=True)
    temporary = state_dir / f".{DEV_FILE}.tmp"
    temporary.write_text(state.model_dump_json(indent=2) + "\n")
    temporary.chmod(0o600)
    os.replace(temporary, state_dir / DEV_FILE)
