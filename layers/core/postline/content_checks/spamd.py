"""spamd reached through aiospamc (a maintained client of the SPAMC protocol), over TCP.

spamd runs with network tests off (`--local`: no DNS blocklists, no URIBL), so a score depends on
the message alone. An unreachable spamd is `None`: the check says `spamassassin: unavailable`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from postline.content_checks.domain import SpamReport, parse_report

logger = logging.getLogger(__name__)


class SpamdScorer:
    def __init__(self, address: str, *, timeout: float = 10.0) -> None:
        """`address`: host:port; empty: no spamd here (every score is None)."""
        host, _, port = address.strip().rpartition(":")
        self._host = host
        self._port = int(port) if port else 0
        self._timeout = timeout

    def score(self, mime: bytes) -> SpamReport | None:
        if not self._host:
            return None
        try:
            response = _run(self._report(mime))
        except Exception as error:  # unreachable, refused, timed out: the other parts still run
            logger.warning("spamd at %s:%s did not answer: %s", self._host, self._port, error)
            return None
        spam = response.headers["Spam"]
        return parse_report(response.body.decode("utf-8", "replace"), float(spam.score), float(spam.threshold))

    async def _report(self, mime: bytes) -> Any:
        # Imported on the first question, not at a cold start that may never ask one (SpamdAddress empty).
        import aiospamc
        from loguru import logger as loguru_logger

        loguru_logger.disable("aiospamc")  # the library logs through loguru; ours is the logging module
        timeout = aiospamc.Timeout(total=self._timeout, connection=min(2.0, self._timeout))
        return await aiospamc.report(mime, host=self._host, port=self._port, timeout=timeout)


def _run(work: Any) -> Any:
    """asyncio.run, also from a thread that already runs a loop (then in a thread of its own)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = asyncio.run(work)
        except BaseException as error:  # handed to the caller's thread
            result["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]
