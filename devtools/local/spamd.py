"""spamd for the content check, on loopback: its own port, its own temporary directory, network tests
off (`--local`: no DNS blocklists), no user configuration, no Bayes learning.

    with Spamd() as spamd:          # Spamd.installed() says whether Debian's spamd is here
        spamd.address               # "127.0.0.1:PORT", the SpamdAddress parameter

Start-up takes a second or two (the rules are compiled at install): start one and keep it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

HOST = "127.0.0.1"
START_TIMEOUT = 60.0
_CANDIDATES = ("spamd", "/usr/sbin/spamd")


def spamd_binary() -> str | None:
    for candidate in _CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


class Spamd:
    def __init__(self, port: int = 0) -> None:
        self._port = port
        self._process: subprocess.Popen[bytes] | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    @staticmethod
    def installed() -> bool:
        return spamd_binary() is not None

    @property
    def address(self) -> str:
        if self._process is None:
            raise RuntimeError("spamd is not running")
        return f"{HOST}:{self._port}"

    def start(self) -> None:
        binary = spamd_binary()
        if binary is None:
            raise FileNotFoundError("spamd is not installed (Debian: apt-get install spamd spamassassin)")
        self._dir = tempfile.TemporaryDirectory(prefix="postline-spamd-")
        home = Path(self._dir.name)
        home.chmod(0o755)  # spamd's children run as nobody when started by root
        self._port = self._port or _free_port()
        args = [
            binary,
            f"--listen={HOST}:{self._port}",
            f"--allowed-ips={HOST}",
            "--local",  # network tests off: no DNS blocklists, no URIBL, no Razor/Pyzor
            "--nouser-config",
            f"--helper-home-dir={home}",
            f"--pidfile={home / 'spamd.pid'}",
            "--syslog=stderr",
            "--min-children=1",
            "--max-children=2",
            "--cf=use_bayes 0",
            "--cf=bayes_auto_learn 0",
        ]
        if os.geteuid() == 0:
            args.append("--username=nobody")
        log = (home / "spamd.log").open("wb")
        watched = ["/bin/sh", "-c", _WATCH, "spamd-watch", str(os.getpid()), *args]
        self._process = subprocess.Popen(  # noqa: S603
            watched, stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=_unblock_signals
        )
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while not _pong(self._port):
            if self._process.poll() is not None or time.monotonic() > deadline:
                output = (home / "spamd.log").read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"spamd did not start on {HOST}:{self._port}: {output}")
            time.sleep(0.1)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()  # the watch stops spamd, whose parent stops its children
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> Spamd:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


# spamd under a watch: it ends when this process ends, even killed outright (SIGKILL leaves no chance to
# stop it, and an orphaned spamd would hold its port and memory); SIGTERM to the watch stops it too.
_WATCH = """
parent=$1; shift
"$@" & child=$!
trap 'kill "$child" 2>/dev/null; wait "$child"; exit 0' TERM INT
while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 0.5; done
kill "$child" 2>/dev/null; wait "$child"
"""


def _unblock_signals() -> None:
    """In the child, before exec: `make run` blocks SIGINT and SIGTERM in every thread (it takes them with
    sigwait), and a child inherits that mask; the watch and spamd must get the SIGTERM that stops them."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def _pong(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=1.0) as connection:
            connection.sendall(b"PING SPAMC/1.5\r\n\r\n")
            return b"PONG" in connection.recv(64)
    except OSError:
        return False
