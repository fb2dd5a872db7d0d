"""The pipeline yields to callers in the emulator: the runtime's background threads mark their AWS
requests, and the emulator's DynamoDB lock serves unmarked requests first (devtools/local/background.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest
from botocore import handlers as botocore_handlers

from devtools.local import background
from devtools.local.activity import Activity
from devtools.local.emulator import ForegroundFirstLock
from devtools.local.pumps import Pump
from devtools.local.ticker import Ticker
from postline.shared.clock import SystemClock


def _wait_until(condition: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _take(lock: ForegroundFirstLock, background: bool, order: list[str], name: str) -> threading.Thread:
    def run() -> None:
        with lock.held(background=background):
            order.append(name)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_waiting_caller_goes_before_background_work_that_waited_longer() -> None:
    lock, order = ForegroundFirstLock(), list[str]()
    with lock.held(background=False):
        pipeline = _take(lock, True, order, "pipeline")
        time.sleep(0.05)  # the pipeline's request is waiting first
        caller = _take(lock, False, order, "caller")
        _wait_until(lambda: lock._foreground_waiting == 1)
    caller.join(5)
    pipeline.join(5)
    assert order == ["caller", "pipeline"]


def test_background_work_waits_for_callers_only_as_long_as_its_patience() -> None:
    lock, order = ForegroundFirstLock(patience=0.05), list[str]()
    storming = threading.Event()
    storming.set()

    def caller() -> None:  # two of these keep a caller always waiting
        while storming.is_set():
            with lock.held(background=False):
                time.sleep(0.002)

    callers = [threading.Thread(target=caller, daemon=True) for _ in range(2)]
    for thread in callers:
        thread.start()
    _wait_until(lambda: lock._foreground_waiting >= 1)
    pipeline = _take(lock, True, order, "pipeline")
    pipeline.join(5)
    still_storming = storming.is_set()
    storming.clear()
    for thread in callers:
        thread.join(5)
    assert order == ["pipeline"] and still_storming  # it got in while callers were still waiting


def test_background_work_goes_on_when_no_caller_waits() -> None:
    lock, order = ForegroundFirstLock(), list[str]()
    with lock.held(background=True):
        order.append("first")
    _take(lock, True, order, "second").join(5)
    assert order == ["first", "second"]


def test_one_holder_at_a_time_whatever_the_mix() -> None:
    lock, holders, most = ForegroundFirstLock(), [0], [0]
    guard = threading.Lock()

    def run(background: bool) -> None:
        for _ in range(50):
            with lock.held(background=background):
                with guard:
                    holders[0] += 1
                    most[0] = max(most[0], holders[0])
                with guard:
                    holders[0] -= 1

    threads = [threading.Thread(target=run, args=(n % 2 == 0,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert most[0] == 1


def test_every_acquirer_gets_in_and_a_release_wakes_one_waiter_that_may_go() -> None:
    """Many callers and background acquirers, some past their patience: each gets the lock once per
    turn, one at a time, and none is left waiting (a release wakes the next one, not all)."""
    lock, holders, most, turns = ForegroundFirstLock(patience=0.01), [0], [0], [0]
    guard = threading.Lock()

    def run(background: bool) -> None:
        for _ in range(40):
            with lock.held(background=background):
                with guard:
                    holders[0] += 1
                    most[0] = max(most[0], holders[0])
                time.sleep(0.0005)
                with guard:
                    holders[0] -= 1
                    turns[0] += 1

    threads = [threading.Thread(target=run, args=(n % 3 == 0,), daemon=True) for n in range(12)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(thread.is_alive() for thread in threads)
    assert turns[0] == 12 * 40 and most[0] == 1
    assert (lock._foreground_waiting, lock._patient_waiting, lock._background_starved, lock._held) == (0, 0, 0, False)


class _Headers(BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).seen.append({key.lower(): value for key, value in self.headers.items()})
        body = b'{"TableNames": []}'
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Headers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Headers.seen = []
    background.install()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        background.uninstall()
        server.shutdown()
        thread.join()


def _list_tables_on(thread_name: str, endpoint: str) -> dict[str, str]:
    client = boto3.session.Session(aws_access_key_id="t", aws_secret_access_key="t", region_name="eu-west-1").client(
        "dynamodb", endpoint_url=endpoint
    )
    worker = threading.Thread(target=client.list_tables, name=thread_name)
    worker.start()
    worker.join(10)
    return _Headers.seen[-1]


@pytest.mark.parametrize(
    "thread_name",
    [
        "pump Dispatcher",
        "pump EventsStream > postline-local-WebhookFanout > part_3",
        "ticker > postline-local-Retention",
    ],
)
def test_the_pipelines_requests_are_marked(endpoint: str, thread_name: str) -> None:
    assert _list_tables_on(thread_name, endpoint).get(background.BACKGROUND_HEADER) == "1"


@pytest.mark.parametrize(
    "thread_name", ["Thread-7 (process_request_thread) > postline-local-SendBatch", "smtp-submission_0"]
)
def test_a_callers_requests_are_not(endpoint: str, thread_name: str) -> None:
    assert background.BACKGROUND_HEADER not in _list_tables_on(thread_name, endpoint)


class _IdlePump(Pump):
    def idle(self) -> bool:
        return True

    def _poll(self) -> None:
        self._stopping.wait(0.01)


def test_the_runtimes_pumps_and_ticker_run_as_background_work() -> None:
    pump = _IdlePump("Dispatcher", Activity(), concurrency=2)
    ticker = Ticker(SystemClock(), [])
    assert all(background.is_background(thread.name) for thread in pump._threads)
    assert background.is_background(ticker._thread.name)


def test_the_guard_refuses_a_botocore_whose_handler_list_moved(monkeypatch: pytest.MonkeyPatch) -> None:
    background.check_internals()  # the pinned botocore
    monkeypatch.setattr(botocore_handlers, "BUILTIN_HANDLERS", ())
    with pytest.raises(RuntimeError, match="botocore changed"):
        background.install()


def test_the_pipelines_requests_wait_for_their_pace_and_a_callers_do_not(endpoint: str) -> None:
    """Issue 25 D6: the runtime installs Activity.pipeline_request as the pace of background requests.
    (Only this test's threads are looked at: a runtime another test started may run its pumps too.)"""
    mine = {"pump Paced > postline-local-Dispatcher", "Thread-7 (process_request_thread) > postline-local-Paced"}
    paced: list[str] = []
    background.install(lambda: paced.append(threading.current_thread().name))
    _list_tables_on("pump Paced > postline-local-Dispatcher", endpoint)
    _list_tables_on("Thread-7 (process_request_thread) > postline-local-Paced", endpoint)
    assert [name for name in paced if name in mine] == ["pump Paced > postline-local-Dispatcher"]
    background.uninstall()
    background.install()
    _list_tables_on("pump Paced > postline-local-Dispatcher", endpoint)
    assert [name for name in paced if name in mine] == ["pump Paced > postline-local-Dispatcher"]  # no pace now
