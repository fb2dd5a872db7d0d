"""The emulator's HTTP server reads a request's headers without the email package's parser.

Why: `http.server` reads every request's headers with `http.client.parse_headers`, which hands
them, joined into one string, to `email.parser.Parser` (a FeedParser in pure Python, built anew
each time). With webhook events at 200 a second that was 10% of the emulator's busy time, more
than moto spent on any DynamoDB operation but UpdateItem: every AWS call the runtime makes is a
request of ~10 plain `Name: value` lines.

How: `http.client.parse_headers` (which `BaseHTTPRequestHandler.parse_request` and
`HTTPResponse.begin` look up in that module when they run) is replaced in the emulator's process.
Where every line is a plain header line (a name of the characters RFC 5322 allows, a colon, a value
without CR or LF, then CRLF or LF) and the block ends with an empty line, it builds the same
message the email parser builds: the same class and policy (compat32), each `(name, value)` pair
as `Compat32.header_source_parse` makes it (the value left-stripped of spaces and tabs), an empty
payload. Anything else (folded lines, a bare CR, a line without a colon, a block cut off by the end
of the stream) goes to the stdlib's function, unchanged. The lines themselves are still read by
`http.client._read_headers`, with its limits on their length and number.

The embedded runtime's process installs it too, while it runs (devtools/local/runtime.py): there
the same function reads the headers of every answer botocore's and the webhook client's connections
get (urllib3 reads them with http.client).

Guard: `install()` checks that the stdlib still reads and parses the headers as CPython 3.11
writes it, and that compat32 still makes a header's pair as above; it raises otherwise.
"""

from __future__ import annotations

import email._policybase
import email.feedparser
import email.parser
import http.client
import re
from typing import Any

from devtools.moto_patches.guarded import GuardedPatch, Replacement

# A header line FeedParser would take as one whole header: its headerRE's name characters (RFC
# 5322's ftext), at least one, a colon, then no CR or LF before the line's end.
_PLAIN = re.compile(r"([\041-\071\073-\176]+):([^\r\n]*)\r?\n")
_ENDS = (b"\r\n", b"\n")


def _parse_headers(fp: Any, _class: Any = http.client.HTTPMessage) -> Any:
    lines = http.client._read_headers(fp)  # type: ignore[attr-defined]  # a private helper, guarded
    if lines[-1] not in _ENDS:  # the stream ended inside the block: the email parser's rules
        return email.parser.Parser(_class=_class).parsestr(b"".join(lines).decode("iso-8859-1"))
    pairs = []
    for line in lines[:-1]:
        plain = _PLAIN.fullmatch(line.decode("iso-8859-1"))
        if plain is None or plain.group(1).startswith("From "):
            return email.parser.Parser(_class=_class).parsestr(b"".join(lines).decode("iso-8859-1"))
        pairs.append((plain.group(1), plain.group(2).lstrip(" \t")))
    message = _class()
    message._headers = pairs
    message._payload = ""
    return message


_PATCH = GuardedPatch(
    "devtools/moto_patches/header_lines.py",
    [Replacement(http.client, "parse_headers", _parse_headers)],
    {  # as CPython 3.11 writes them
        "http.client.parse_headers": (
            lambda: http.client.parse_headers,
            (
                "headers = _read_headers(fp)",
                "hstring = b''.join(headers).decode('iso-8859-1')",
                "return email.parser.Parser(_class=_class).parsestr(hstring)",
            ),
        ),
        "http.client._read_headers": (
            lambda: http.client._read_headers,  # type: ignore[attr-defined]
            ("if line in (b'\\r\\n', b'\\n', b''):",),
        ),
        "email._policybase.Compat32.header_source_parse": (
            lambda: email._policybase.Compat32.header_source_parse,
            ("name, value = sourcelines[0].split(':', 1)", "value = value.lstrip(' \\t') + ''.join(sourcelines[1:])"),
        ),
        "email.feedparser.headerRE": (
            lambda: email.feedparser,
            ("headerRE = re.compile(r'^(From |[\\041-\\071\\073-\\176]*:|[\\t ])')",),
        ),
    },
    upstream="Python",
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
