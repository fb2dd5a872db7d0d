"""A real DNS server on loopback, answering from a zone it is given (dnslib): the embedded runtime's
DNS (sending domains' records are published and checked here; `/_local/dns`), and tests' peer.

    with DnsServer({"example.test": [MX(10, "mx.example.test")], "mx.example.test": [A("127.0.0.1")]}) as dns:
        resolver = MxResolver(nameserver=dns.address)
        dns.add("s1._domainkey.example.test", TXT(dkim_txt(public_key)))

UDP and TCP listen on the same free port of 127.0.0.1; a UDP reply too long for the asker (512
bytes, or its EDNS size) is truncated, so resolvers ask again over TCP. A name with no records at
all is NXDOMAIN; a name with records, none of the type asked, is an empty answer; a name holding
`SERVFAIL` answers SERVFAIL to everything. Names are ASCII: an internationalized one as its A-label.
`document()` and `load()` carry the zone as JSON, for the embedded runtime's snapshots.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Any

import dnslib
from dnslib.server import BaseResolver, DNSHandler, DNSLogger, DNSServer

HOST = "127.0.0.1"
TTL = 60
_POLL_SECONDS = 0.05  # how often serve_forever looks for shutdown: stopping takes at most this long

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class A:
    address: str

    def rdata(self) -> dnslib.RD:
        return dnslib.A(self.address)


@dataclass(frozen=True)
class MX:
    preference: int
    exchange: str  # "." is the null MX of RFC 7505

    def rdata(self) -> dnslib.RD:
        return dnslib.MX(self.exchange, self.preference)


@dataclass(frozen=True)
class CNAME:
    target: str

    def rdata(self) -> dnslib.RD:
        return dnslib.CNAME(self.target)


@dataclass(frozen=True)
class TXT:
    text: str  # any length: sent as 255-byte character-strings, which readers join

    def rdata(self) -> dnslib.RD:
        data = self.text.encode()
        return dnslib.TXT([data[i : i + 255] for i in range(0, len(data), 255)] or [b""])


@dataclass(frozen=True)
class _ServFail:
    pass


@dataclass(frozen=True)
class Query:
    name: str  # lower-case, without the trailing dot
    type: str  # "MX", "A", "TXT", ...
    protocol: str  # "udp" or "tcp"


NULL_MX = MX(0, ".")
SERVFAIL = _ServFail()
_SERVFAIL = "SERVFAIL"  # its type in a document()

Record = A | MX | TXT | CNAME | _ServFail
RECORD_TYPES: dict[str, type[A | MX | TXT | CNAME]] = {"A": A, "MX": MX, "TXT": TXT, "CNAME": CNAME}
Zone = Mapping[str, Sequence[Record]]


def _key(name: str) -> str:
    return name.rstrip(".").lower()


def _type_name(record: Record) -> str:
    return _SERVFAIL if isinstance(record, _ServFail) else type(record).__name__


class _ZoneResolver(BaseResolver):  # type: ignore[misc]  # dnslib is unannotated
    def __init__(self) -> None:
        self._records: dict[str, list[Record]] = {}
        self._lock = threading.Lock()
        self._queries: list[Query] = []

    def add(self, name: str, records: Sequence[Record]) -> None:
        with self._lock:
            self._records.setdefault(_key(name), []).extend(records)

    def replace(self, name: str, records: Sequence[Record]) -> None:
        with self._lock:
            self._records.pop(_key(name), None)
            if records:
                self._records[_key(name)] = list(records)

    def records(self) -> dict[str, list[Record]]:
        with self._lock:
            return {name: list(records) for name, records in self._records.items()}

    def replace_type(self, name: str, record_type: str, records: Sequence[Record]) -> None:
        with self._lock:
            kept = [r for r in self._records.pop(_key(name), []) if type(r).__name__ != record_type]
            if kept or records:
                self._records[_key(name)] = [*kept, *records]

    def asked(self) -> list[Query]:
        with self._lock:
            return list(self._queries)

    def resolve(self, request: dnslib.DNSRecord, handler: Any) -> dnslib.DNSRecord:
        question = request.q
        qtype = dnslib.QTYPE[question.qtype]
        name = _key(str(question.qname))
        reply = request.reply()
        with self._lock:
            self._queries.append(Query(name, qtype, handler.protocol))
            records = list(self._records.get(name, ()))
        if not records:
            reply.header.rcode = dnslib.RCODE.NXDOMAIN
        elif SERVFAIL in records:
            reply.header.rcode = dnslib.RCODE.SERVFAIL
        else:
            for record in records:
                if not isinstance(record, _ServFail) and type(record).__name__ == qtype:
                    reply.add_answer(dnslib.RR(question.qname, question.qtype, rdata=record.rdata(), ttl=TTL))
        return reply


class _Handler(DNSHandler):  # type: ignore[misc]
    """Truncates UDP replies as real servers do: at 512 bytes, or the size the asker's EDNS allows,
    keeping the question (dnslib's own handler never truncates, and its truncate() drops it)."""

    def get_reply(self, data: bytes) -> bytes:
        request = dnslib.DNSRecord.parse(data)
        reply = self.server.resolver.resolve(request, self)
        packed: bytes = reply.pack()
        edns = [record.rclass for record in request.ar if record.rtype == dnslib.QTYPE.OPT]
        if self.protocol == "udp" and len(packed) > max([512, *edns]):
            header = dnslib.DNSHeader(id=reply.header.id, bitmap=reply.header.bitmap, tc=1)
            packed = dnslib.DNSRecord(header, questions=reply.questions).pack()
        return packed


def _bind(resolver: _ZoneResolver) -> tuple[DNSServer, DNSServer]:
    """A UDP and a TCP server on one port: the OS picks it for UDP; retried when TCP has it taken."""
    quiet = DNSLogger("-request,-reply,-truncated", prefix=False, logf=logger.warning)  # only errors
    for _ in range(20):
        udp = DNSServer(resolver, address=HOST, port=0, logger=quiet, handler=_Handler)
        port = udp.server.server_address[1]
        try:
            tcp = DNSServer(resolver, address=HOST, port=port, tcp=True, logger=quiet, handler=_Handler)
        except OSError:
            udp.server.server_close()
            continue
        return udp, tcp
    raise RuntimeError("no port free for both UDP and TCP on 127.0.0.1")


class DnsServer:
    def __init__(self, zone: Zone | None = None) -> None:
        self._resolver = _ZoneResolver()
        for name, records in (zone or {}).items():
            self._resolver.add(name, records)
        self._servers: tuple[DNSServer, DNSServer] | None = None
        self._threads: list[threading.Thread] = []

    @property
    def port(self) -> int:
        if self._servers is None:
            raise RuntimeError("the DNS server is not running")
        port: int = self._servers[0].server.server_address[1]
        return port

    @property
    def address(self) -> str:
        """ "127.0.0.1:port", as MxResolver(nameserver=...) takes it."""
        return f"{HOST}:{self.port}"

    @property
    def queries(self) -> list[Query]:
        """Every question asked so far, in order."""
        return self._resolver.asked()

    def add(self, name: str, *records: Record) -> None:
        """Publish more records at `name` (also while running)."""
        self._resolver.add(name, records)

    @property
    def records(self) -> dict[str, list[Record]]:
        """The zone: every name with its records."""
        return self._resolver.records()

    def replace_type(self, name: str, record_type: str, *records: Record) -> None:
        """Publish exactly these records of one type at `name`, keeping its other types."""
        self._resolver.replace_type(name, record_type, records)

    def replace(self, name: str, *records: Record) -> None:
        """Publish exactly these records at `name`; none makes it NXDOMAIN."""
        self._resolver.replace(name, records)

    def document(self) -> list[dict[str, Any]]:
        """The zone as JSON: {"name", "type", and the record's fields} for each record, in order."""
        return [
            {"name": name, "type": _type_name(record), **asdict(record)}
            for name, held in self.records.items()
            for record in held
        ]

    def load(self, document: Iterable[Mapping[str, Any]]) -> None:
        """Publishes what a `document()` holds: exactly its records at each of its names."""
        zone: dict[str, list[Record]] = {}
        for entry in document:
            fields = {key: value for key, value in entry.items() if key not in ("name", "type")}
            record = SERVFAIL if entry["type"] == _SERVFAIL else RECORD_TYPES[entry["type"]](**fields)
            zone.setdefault(entry["name"], []).append(record)
        for name, records in zone.items():
            self.replace(name, *records)

    def start(self) -> None:
        self._servers = _bind(self._resolver)
        for server in self._servers:
            thread = threading.Thread(
                target=server.server.serve_forever,
                kwargs={"poll_interval": _POLL_SECONDS},
                name=f"dns-peer-{self.port}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        if self._servers is None:
            return
        for server in self._servers:
            server.server.shutdown()
            server.server.server_close()
        for thread in self._threads:
            thread.join()
        self._servers = None
        self._threads = []

    def __enter__(self) -> DnsServer:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()


@contextmanager
def unanswered_nameserver() -> Iterator[str]:
    """ "127.0.0.1:port" of a nameserver that never answers: a UDP port held open and never read.

    Holding the port (rather than naming a closed one) keeps any other server from taking it, so
    queries to it time out every time.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((HOST, 0))
        yield f"{HOST}:{sock.getsockname()[1]}"
