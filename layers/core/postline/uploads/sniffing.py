"""The stored content type, sniffed from the file's first bytes with puremagic (the client's word is
never taken): the most confident signature match at the file's start; else text/plain for UTF-8 text
without NUL bytes; else application/octet-stream. Whatever it finds, downloads are attachments, and
active types (HTML, SVG, XML, script) are served as octet-stream (domain.py `served_type`)."""

from __future__ import annotations

import puremagic

OCTET_STREAM = "application/octet-stream"
CONTAINERS = ("application/zip", "application/x-tar", "application/gzip", "application/x-ole-storage")


def sniff(head: bytes) -> str:
    if not head:
        return OCTET_STREAM
    try:
        matches = puremagic.magic_string(head)
    except puremagic.PureError:
        matches = []
    # Signatures found at the start (negative offsets are footers: the head is not the whole file).
    found = [m for m in matches if m.mime_type and m.offset >= 0]
    if found:
        best = max(m.confidence for m in found)
        kinds = list(dict.fromkeys(str(m.mime_type) for m in found if m.confidence == best))
        # A container's signature alone (a ZIP's PK header) fits every format built on it: the container.
        return kinds[0] if len(kinds) == 1 else next((k for k in kinds if k in CONTAINERS), kinds[0])
    if b"\x00" not in head and _utf8(head):
        return "text/plain"
    return OCTET_STREAM


def _utf8(head: bytes) -> bool:
    """UTF-8 text, allowing a character cut off at the head's end."""
    for cut in range(4):
        try:
            head[: len(head) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return True
    return False
