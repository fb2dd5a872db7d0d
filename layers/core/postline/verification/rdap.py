"""The Registrations adapter: a domain's registration date over RDAP (RFC 9082/9083, HTTPS + JSON).

GET {base}/domain/{name} with Accept: application/rdap+json; the `events` entry whose eventAction
is `registration` holds the date. The base is a bootstrap redirector (https://rdap.org follows
IANA's bootstrap registry to the TLD's server; redirects are followed) or one registry's server;
tests run a local RDAP server over HTTPS and pass its CA. A registry that cannot be reached, or
does not say, gives no date and why: domain_age_days is then null and the result's reason says so.
A registry that could not be asked (no connection, a timeout, a 5xx, a 429) is marked `unreachable`:
the verifier keeps that for an hour (verification/store.py), so a registry that is down costs one
timeout an hour per domain, not one per check.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime

from postline.verification.domain import Registration

MEDIA_TYPE = "application/rdap+json"


class RdapRegistrations:
    def __init__(self, base_url: str, *, ca_bundle: str = "", timeout: float = 3.0) -> None:
        self._base = base_url.rstrip("/")
        self._timeout = timeout
        self._context = ssl.create_default_context()
        if ca_bundle:
            self._context.load_verify_locations(cafile=ca_bundle)

    def registered_at(self, domain: str) -> Registration:
        if not self._base:
            return Registration(None, "no RDAP service is configured")
        url = f"{self._base}/domain/{urllib.parse.quote(domain)}"
        if not url.startswith("https://"):
            return Registration(None, "RDAP is asked over HTTPS only")
        request = urllib.request.Request(url, headers={"Accept": MEDIA_TYPE})  # noqa: S310  (https only, above)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout, context=self._context) as response:  # noqa: S310
                body = json.loads(response.read(1_000_000))
        except urllib.error.HTTPError as error:
            down = error.code >= 500 or error.code == 429
            return Registration(None, f"the registry answered {error.code} for {domain}", unreachable=down)
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            return Registration(None, f"the RDAP registry could not be reached ({reason})", unreachable=True)
        for event in body.get("events") or []:
            if isinstance(event, dict) and event.get("eventAction") == "registration":
                try:
                    return Registration(datetime.fromisoformat(str(event["eventDate"]).replace("Z", "+00:00")))
                except (KeyError, ValueError):
                    break
        return Registration(None, f"the registry gives no registration date for {domain}")
