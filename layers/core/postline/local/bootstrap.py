"""The development account: created at every start, with the same id and keys as last time.

moto keeps everything in memory, so each start re-creates the account and its two keys from
`<state dir>/dev.json` (or makes new ones the first time) and rewrites the file with this
start's addresses. Keys therefore survive restarts, and scripts can read dev.json.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel

from postline import wiring
from postline.domain.accounts import Plan
from postline.domain.keys import Environment

DEV_FILE = "dev.json"
ACCOUNT_NAME = "Development"


class DevKeys(BaseModel):
    live: str
    test: str


class AwsTarget(BaseModel):
    endpoint_url: str
    region: str
    env: dict[str, str]  # the functions' resolved environment


class DevState(BaseModel):
    base_url: str
    account_id: str | None  # None when the runtime was started without a dev account
    keys: DevKeys | None
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
    """Creates the development account (plan professional) and a full-access live and test key."""
    operator = wiring.operator_service()
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


def save_state(state_dir: Path, state: DevState) -> None:
    """Written whole and then renamed, readable by the owner only: it holds live keys."""
    state_dir.mkdir(parents=True, exist_ok=True)
    temporary = state_dir / f".{DEV_FILE}.tmp"
    temporary.write_text(state.model_dump_json(indent=2) + "\n")
    temporary.chmod(0o600)
    os.replace(temporary, state_dir / DEV_FILE)
