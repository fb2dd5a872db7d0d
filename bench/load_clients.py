"""The load section's clients (bench/load.py), one process each: `python -m bench.load_clients`.

It imports only the standard library and requests, so that a client costs the runtime's process
nothing (its own interpreter) and starts fast. The parent writes one JSON line of settings to its
stdin; it answers `ready` once its connections are open (SMTP: authenticated), waits for a line
`start <epoch seconds>`, makes its calls, and writes its results as one JSON line.

Call i of the run is due at start + i * interval (open loop); worker w of the run's `every` workers
makes calls w, w + every, ... each on its own keep-alive connection, at its time or, when late, as
soon as its previous call is answered; a late worker stops at the run's end (start + total *
interval), so a machine that cannot offer the rate runs for the run's length, not until every call.
"""

from __future__ import annotations

import functools
import json
import math
import smtplib
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

SENDER, RECIPIENT = "hello@example.com", "delivered@simulator.postline.dev"
SEND_EVERY = 4  # one call in four is a send (SMTP: one accepted MAIL in four goes on to DATA)
WINDOW_SECONDS = 60  # postline.auth.ratelimit's (bench/load.py checks they agree)
_RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def api_worker(settings: dict[str, Any], number: int, start: float) -> list[dict[str, Any]]:
    """Worker `number`'s calls: each answer's start (wall clock), seconds, kind, status, the end of
    the window it was counted in, error code, Retry-After, rate headers, Remaining, message id."""
    import requests

    base_url, total, interval, every = settings["base_url"], settings["total"], settings["interval"], settings["every"]
    offset = settings["offset"]  # the runtime's clock minus this machine's
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {settings['key']}"
    body = {"from": SENDER, "to": [RECIPIENT], "subject": "Load", "text": "Load.", "tags": ["load"]}
    last_id: str | None = None
    answers = []
    end = start + total * interval  # a late worker stops at the run's end: the rest is not offered
    for index in range(number, total, every):
        delay = start + index * interval - time.time()
        if delay > 0:
            time.sleep(delay)
        elif time.time() >= end:
            break
        kind = "send" if index % SEND_EVERY == 0 or last_id is None else "get"
        began = time.time()
        answer: dict[str, Any] = {"started": began, "kind": kind, "status": 0}
        try:
            if kind == "send":
                response = session.post(f"{base_url}/v3/messages", json=body, timeout=60)
            else:
                response = session.get(f"{base_url}/v3/messages/{last_id}", timeout=60)
        except requests.RequestException as error:
            answer.update(seconds=time.time() - began, error=repr(error))
            answers.append(answer)
            continue
        answer["seconds"] = time.time() - began
        now = time.time() + offset
        headers = response.headers
        reset = headers.get("X-RateLimit-Reset")
        remaining = headers.get("X-RateLimit-Remaining")
        answer.update(
            status=response.status_code,
            window_end=math.floor((now + int(reset)) / WINDOW_SECONDS) * WINDOW_SECONDS if reset else None,
            retry_after="Retry-After" in headers,
            rate_headers=all(name in headers for name in _RATE_HEADERS),
            remaining=int(remaining) if remaining is not None else None,
            limit=int(headers["X-RateLimit-Limit"]) if "X-RateLimit-Limit" in headers else None,
        )
        if response.status_code >= 400:
            try:
                answer["code"] = response.json().get("error", {}).get("code")
            except ValueError:
                answer["code"] = None
        elif kind == "send" and response.status_code == 202:
            answer["message_id"] = last_id = response.json()["id"]
        answers.append(answer)
    return answers


def smtp_connect(settings: dict[str, Any]) -> smtplib.SMTP:
    connection = smtplib.SMTP(settings["host"], settings["port"], timeout=60)
    connection.login("api", settings["key"])
    return connection


def smtp_worker(settings: dict[str, Any], connection: smtplib.SMTP, number: int, start: float) -> list[dict[str, Any]]:
    """Worker `number`'s MAIL FROMs: the runtime's clock before and after each, its reply, and for
    one accepted MAIL in SEND_EVERY, DATA's reply and the queued message's id."""
    total, interval, every, offset = settings["total"], settings["interval"], settings["every"], settings["offset"]
    raw = f"From: {SENDER}\r\nTo: {RECIPIENT}\r\nSubject: Load\r\nX-Svc-Tag: load\r\n\r\nLoad.\r\n".encode()
    mails = []
    accepted = 0
    end = start + total * interval
    for index in range(number, total, every):
        delay = start + index * interval - time.time()
        if delay > 0:
            time.sleep(delay)
        elif time.time() >= end:
            break
        before = time.time() + offset
        code, text = connection.mail(SENDER)
        mail: dict[str, Any] = {"before": before, "after": time.time() + offset, "reply": f"{code} {text.decode()}"}
        if code == 250:
            accepted += 1
            if accepted % SEND_EVERY == 1:
                connection.rcpt(RECIPIENT)
                code, text = connection.data(raw)
                mail["data_reply"] = f"{code} {text.decode()}"
                if code == 250:
                    mail["message_id"] = text.decode().rsplit(" ", 1)[-1]
            else:
                connection.rset()
        mails.append(mail)
    connection.quit()
    return mails


def main() -> None:
    settings = json.loads(sys.stdin.readline())
    numbers: list[int] = settings["numbers"]
    work: dict[int, Callable[[float], list[dict[str, Any]]]] = {}
    for number in numbers:
        if settings["kind"] == "smtp":
            connection = smtp_connect(settings)  # before `ready`: the parent then tries one more
            work[number] = functools.partial(smtp_worker, settings, connection, number)
        else:
            work[number] = functools.partial(api_worker, settings, number)
    print("ready", flush=True)
    command, value = sys.stdin.readline().split()
    if command != "start":
        raise SystemExit(f"expected 'start <epoch seconds>', got {command!r}")
    start = float(value)
    results: list[dict[str, Any]] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def run(number: int) -> None:
        try:
            found = work[number](start)
        except BaseException as error:  # reported to the parent
            errors.append(error)
            return
        with lock:
            results.extend(found)

    threads = [threading.Thread(target=run, args=(number,)) for number in numbers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    main()
