"""`postline` on a development machine: the operator CLI (postline.cli), pointed at the embedded
runtime when no deployed stack is configured.

When RESOURCES_TABLE is set, the environment names a stack and this only calls postline.cli's
main. Otherwise it reads `<state dir>/dev.json` (written by `make run`; the state dir is
`--state-dir`, else POSTLINE_STATE_DIR, else .local), checks through localstack-client that the
runtime's AWS emulator answers on the endpoint dev.json names (port 4566 by default, LocalStack's)
and holds the runtime's resources table, fills the environment from dev.json and calls main.
An AWS_ENDPOINT_URL already set wins over dev.json's endpoint, as it does for boto3.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from postline import cli, wiring

if TYPE_CHECKING:
    from localstack_client.session import Session

# The emulator accepts any credentials; these keep botocore from looking for real ones.
_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
# A stopped runtime should be reported at once, not after botocore's retries.
_PROBE = Config(connect_timeout=2, read_timeout=10, retries={"total_max_attempts": 1})


def _state_dir(argv: list[str]) -> tuple[Path, list[str]]:
    """`--state-dir DIR` (anywhere in argv) and the arguments left for postline.cli."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--state-dir", type=Path, default=Path(os.environ.get("POSTLINE_STATE_DIR", ".local")))
    known, rest = parser.parse_known_args(argv)
    state_dir: Path = known.state_dir
    return state_dir, rest


def emulator_session(endpoint_url: str, region: str) -> Session:
    """A localstack-client session on the emulator at `endpoint_url` (its host:port)."""
    from localstack_client.session import Session  # a dev requirement: only the local mode needs it

    return Session(
        aws_access_key_id=_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        region_name=region,
        localstack_host=urlsplit(endpoint_url).netloc,
    )


def _check_emulator(dev_file: Path, aws: dict[str, Any]) -> None:
    """Fails with a clear message unless the emulator dev.json names answers with its resources table."""
    endpoint = os.environ.get("AWS_ENDPOINT_URL") or aws["endpoint_url"]
    table = aws["env"]["RESOURCES_TABLE"]
    dynamodb: Any = emulator_session(endpoint, aws["region"]).client("dynamodb", config=_PROBE)
    try:
        dynamodb.describe_table(TableName=table)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
        raise SystemExit(
            f"The AWS emulator at {endpoint} answers but holds no table {table}: it is not the runtime that "
            f"wrote {dev_file}. Restart `make run`, or set RESOURCES_TABLE and the rest for another stack."
        ) from None
    except BotoCoreError as error:
        raise SystemExit(
            f"{dev_file} names the embedded runtime's AWS emulator at {endpoint}, but it does not answer "
            f"({error}). Start `make run` (or give --state-dir of a running one)."
        ) from None


def use_local_runtime(state_dir: Path) -> None:
    """Points this process at the embedded runtime of `state_dir` unless a stack is configured."""
    if "RESOURCES_TABLE" in os.environ:
        return
    dev_file = state_dir / "dev.json"
    if not dev_file.exists():
        raise SystemExit(
            "No environment configured: set RESOURCES_TABLE, COUNTERS_TABLE and KEY_HASH_SECRET_ID from the "
            f"stack's outputs (and AWS_ENDPOINT_URL for an emulator), or start `make run` so that {dev_file} exists."
        )
    aws = json.loads(dev_file.read_text())["aws"]
    _check_emulator(dev_file, aws)
    os.environ.update(aws["env"])
    for name, value in _CREDENTIALS.items():
        os.environ.setdefault(name, value)
    os.environ.setdefault("AWS_ENDPOINT_URL", aws["endpoint_url"])
    os.environ.setdefault("AWS_DEFAULT_REGION", aws["region"])
    wiring.reset()


def main(argv: list[str] | None = None) -> int:
    state_dir, rest = _state_dir(sys.argv[1:] if argv is None else argv)
    if rest and not {"-h", "--help"} & set(rest):  # help and usage need no environment
        use_local_runtime(state_dir)
    return cli.main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
