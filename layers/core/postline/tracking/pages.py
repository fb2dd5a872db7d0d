"""What the tracking routes show a person: the open pixel and the unsubscribe pages."""

from __future__ import annotations

import base64
import html

PIXEL = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")  # 1x1 transparent GIF
UNSUBSCRIBED = "<!doctype html><meta charset=utf-8><title>Unsubscribed</title><p>You are unsubscribed.</p>"


def unsubscribe_form(token: str) -> str:
    """GET shows a button that POSTs (RFC 8058): mail scanners follow GETs, and must not unsubscribe."""
    return (
        "<!doctype html><meta charset=utf-8><title>Unsubscribe</title>"
        "<p>Stop receiving these emails?</p>"
        f'<form method="post" action="{html.escape(token)}"><button type="submit">Unsubscribe</button></form>'
    )
