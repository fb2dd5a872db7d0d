"""The development account: created at every start, with the same id and keys as last time.

moto keeps everything in memory, so each start re-creates the account and its two keys from
`<state dir>/dev.json` (or makes new ones the first time) and rewrites the file with this
start's addresses. Keys therefore survive restarts, and scripts can read dev.json.

Until sending domains are a resource of their own, the account also gets a verified sending
domain with a DKIM key (kept in `<state dir>/dkim-private.pem`); dev.json's `sending_domain`
says what to publish in DNS for receivers to check the signature.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pydantic import BaseModel

from postline import wiring
from postline.accounts.domain import Plan
from postline.domains.domain import DomainStatus, SendingDomain, dkim_txt
from postline.keys.domain import Environment

DEV_FILE = "dev.json"
DKIM_KEY_FILE = "dkim-private.pem"
ACCOUNT_NAME = "Development"
SENDING_DOMAIN = "postline.test"
DKIM_SELECTOR = "pl1"


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
    operator = wiring.operator_service()
    if previous and previous.keys and wiring.account_store().get_account(previous.account_id or "") is not None:
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


def seed_sending_domain(state_dir: Path, account_id: str) -> DevSendingDomain:
    """A verified sending domain for the account, signing with the key kept in the state dir."""
    key_file = state_dir / DKIM_KEY_FILE
    if key_file.exists():
        private_key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    else:
        private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        state_dir.mkdir(parents=True, exist_ok=True)
        key_file.write_bytes(
            private_key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        key_file.chmod(0o600)
    pem = key_file.read_text()
    public_der = private_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    wiring.sending_domains().put_domain(
        SendingDomain(
            account_id=account_id,
            domain=SENDING_DOMAIN,
            status=DomainStatus.VERIFIED,
            dkim_selector=DKIM_SELECTOR,
            dkim_private_key=pem,
        )
    )
    return DevSendingDomain(
        domain=SENDING_DOMAIN,
        dkim_selector=DKIM_SELECTOR,
        dkim_record=f"{DKIM_SELECTOR}._domainkey.{SENDING_DOMAIN}",
        dkim_txt=dkim_txt(base64.b64encode(public_der).decode()),
    )


def save_state(state_dir: Path, state: DevState) -> None:
    """Written whole and then renamed, readable by the owner only: it holds live keys."""
    state_dir.mkdir(parents=True, exist_ok=True)
    temporary = state_dir / f".{DEV_FILE}.tmp"
    temporary.write_text(state.model_dump_json(indent=2) + "\n")
    temporary.chmod(0o600)
    os.replace(temporary, state_dir / DEV_FILE)
