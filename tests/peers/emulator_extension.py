"""An emulator extension for the tests (POSTLINE_EMULATOR_EXTENSION=tests.peers.emulator_extension):
GET /_emulator/tables answers the DynamoDB tables moto holds, read inside the emulator's process."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends

from devtools.local.emulator import EXTENSION_PATH


def wsgi(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != f"{EXTENSION_PATH}tables":
            return app(environ, start_response)
        tables = sorted(dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].tables)
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(tables).encode()]

    return wrapped
