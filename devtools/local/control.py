"""The control surface under /_local/: for tests and curious users, loopback only, never deployed.

POST   /_local/clock/advance  {"seconds": N}     move the clock, fire what became due -> {"now"}
POST   /_local/drain          {"timeout": N}?    wait until queues, streams and due schedules are
                                                 idle -> {"idle": true}, or 503 when still busy
GET    /_local/mailbox                           what the outbound mail sink received -> {"items"}
DELETE /_local/mailbox                           forget it
GET    /_local/dns                               the local DNS zone -> {"records": [{name, type, value}]}
PUT    /_local/dns  {"name", "type", "values"}   publish exactly these values of one type (TXT, MX
                                                 "10 host", CNAME, A) at a name; [] removes them
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from werkzeug.wrappers import Request, Response

from devtools.local.dns_server import CNAME, MX, RECORD_TYPES, TXT, A, DnsServer, Record
from devtools.local.mail_sink import MailSink
from devtools.local.responses import error_response, json_response

DEFAULT_DRAIN_TIMEOUT = 30.0
_MAX_DRAIN_TIMEOUT = 300.0
_MAX_ADVANCE = 100 * 366 * 86400  # a century: far enough for any retention rule, short of overflow


class BadRequest(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Control:
    def __init__(
        self,
        advance: Callable[[float], datetime],
        drain: Callable[[float], list[str]],
        mail: MailSink,
        dns: DnsServer,
    ) -> None:
        self._advance = advance
        self._drain = drain
        self._mail = mail
        self._dns = dns
        self._routes: dict[tuple[str, str], Callable[[Request], Response]] = {
            ("POST", "/_local/clock/advance"): self._advance_clock,
            ("POST", "/_local/drain"): self._drain_work,
            ("GET", "/_local/mailbox"): self._list_mail,
            ("DELETE", "/_local/mailbox"): self._clear_mail,
            ("GET", "/_local/dns"): self._list_dns,
            ("PUT", "/_local/dns"): self._publish_dns,
        }

    def __call__(self, request: Request) -> Response:
        if not ipaddress.ip_address(request.remote_addr or "0.0.0.0").is_loopback:  # noqa: S104 - a guard
            return error_response(403, "forbidden", "The /_local/ control surface answers loopback clients only.")
        route = self._routes.get((request.method, request.path))
        if route is None:
            return error_response(404, "not_found", "No such route.")
        try:
            return route(request)
        except BadRequest as error:
            return error_response(400, error.code, error.message)

    def _advance_clock(self, request: Request) -> Response:
        seconds = _number(_json_object(request), "seconds", high=_MAX_ADVANCE)
        now = self._advance(seconds)
        return json_response({"now": now.isoformat()})

    def _drain_work(self, request: Request) -> Response:
        timeout = _number(_json_object(request), "timeout", high=_MAX_DRAIN_TIMEOUT, default=DEFAULT_DRAIN_TIMEOUT)
        busy = self._drain(timeout)
        if busy:
            return error_response(503, "not_idle", f"Still busy after {timeout:g} s: {', '.join(busy)}.")
        return json_response({"idle": True})

    def _list_mail(self, request: Request) -> Response:
        return json_response({"items": self._mail.messages()})

    def _clear_mail(self, request: Request) -> Response:
        self._mail.clear()
        return Response(status=204)

    def _list_dns(self, request: Request) -> Response:
        records = [
            {"name": name, "type": type(record).__name__, "value": _dns_value(record)}
            for name, held in sorted(self._dns.records.items())
            for record in held
        ]
        return json_response({"records": records})

    def _publish_dns(self, request: Request) -> Response:
        body = _json_object(request)
        name, record_type, values = body.get("name"), body.get("type"), body.get("values")
        if not isinstance(name, str) or not name.strip(".") or len(name) > 253:
            raise BadRequest("validation_error", "name: a DNS name.")
        if record_type not in RECORD_TYPES:
            raise BadRequest("validation_error", f"type: one of {', '.join(RECORD_TYPES)}.")
        if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
            raise BadRequest("validation_error", "values: a list of strings ([] removes the records).")
        self._dns.replace_type(name, record_type, *[_dns_record(record_type, value) for value in values])
        return self._list_dns(request)


def _dns_record(record_type: str, value: str) -> Record:
    if record_type == "MX":
        preference, _, exchange = value.strip().partition(" ")
        if not preference.isdigit() or not exchange.strip():
            raise BadRequest("validation_error", 'values: an MX value is "<preference> <host>".')
        return MX(int(preference), exchange.strip())
    single: dict[str, Callable[[str], Record]] = {"A": A, "TXT": TXT, "CNAME": CNAME}
    return single[record_type](value)


def _dns_value(record: Record) -> str:
    if isinstance(record, MX):
        return f"{record.preference} {record.exchange}"
    return str(next(iter(vars(record).values()), ""))


def _json_object(request: Request) -> dict[str, Any]:
    raw = request.get_data()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError as error:
        raise BadRequest("invalid_json", "The request body is not valid JSON.") from error
    if not isinstance(body, dict):
        raise BadRequest("validation_error", "The request body must be a JSON object.")
    return body


def _number(body: dict[str, Any], name: str, *, high: float, default: float | None = None) -> float:
    """body[name], a number from 0 to `high`; `default` when absent (required when None)."""
    if name not in body and default is not None:
        return default
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= high:
        raise BadRequest("validation_error", f"{name}: must be a number from 0 to {high:g}.")
    return float(value)
