"""The runtime's HTTP API as a client sees it, timed on the client side (connection kept alive)."""

from __future__ import annotations

import time
from typing import Any

import requests

_TIMEOUT_SECONDS = 600.0  # a 5,000-recipient batch on moto takes a while


class ApiError(RuntimeError):
    pass


class ApiClient:
    """One keep-alive connection; not for sharing between threads (make one per thread)."""

    def __init__(self, base_url: str, key: str) -> None:
        self._base_url = base_url
        self._session = requests.Session()
        self._session.headers["Authorization"] = f"Bearer {key}"

    def post(self, path: str, body: dict[str, Any] | None = None, *, expect: int = 200) -> tuple[float, Any]:
        """(seconds, JSON reply) of a POST that must answer `expect`."""
        started = time.perf_counter()
        response = self._session.post(self._base_url + path, json=body, timeout=_TIMEOUT_SECONDS)
        seconds = time.perf_counter() - started
        if response.status_code != expect:
            raise ApiError(f"POST {path}: {response.status_code} {response.text[:500]}")
        return seconds, response.json() if response.content else None

    def get(self, path: str, params: dict[str, str] | None = None) -> tuple[float, Any]:
        """(seconds, JSON reply) of a GET that must answer 200."""
        seconds, status, reply = self.get_status(path, params)
        if status != 200:
            raise ApiError(f"GET {path}: {status} {reply}")
        return seconds, reply

    def get_status(self, path: str, params: dict[str, str] | None = None) -> tuple[float, int, Any]:
        """(seconds, status, JSON reply) of a GET, whatever it answers."""
        started = time.perf_counter()
        response = self._session.get(self._base_url + path, params=params, timeout=_TIMEOUT_SECONDS)
        seconds = time.perf_counter() - started
        return seconds, response.status_code, response.json() if response.content else None

    def delete(self, path: str) -> None:
        response = self._session.delete(self._base_url + path, timeout=_TIMEOUT_SECONDS)
        if response.status_code >= 300:
            raise ApiError(f"DELETE {path}: {response.status_code} {response.text[:500]}")

    def send(self, body: dict[str, Any]) -> float:
        """POST /v3/messages; its seconds."""
        seconds, _ = self.post("/v3/messages", body, expect=202)
        return seconds

    def mailbox_count(self) -> int:
        response = self._session.get(self._base_url + "/_local/mailbox", timeout=_TIMEOUT_SECONDS)
        response.raise_for_status()
        return len(response.json()["items"])

    def clear_mailbox(self) -> None:
        self._session.delete(self._base_url + "/_local/mailbox", timeout=_TIMEOUT_SECONDS).raise_for_status()
