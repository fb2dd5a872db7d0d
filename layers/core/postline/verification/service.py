"""Verifying recipients for real (live keys): the syntax, then where each domain's mail goes.

Each domain is looked up once per call, so a message to a thousand addresses at one provider
costs one DNS lookup, not a thousand. The lookups share a time budget: the dispatcher runs for
seconds, not for a slow DNS server times many domains, so domains left when it is spent are
`unknown` (which sends, as a DNS timeout does).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from postline.sending.domain import domain_of
from postline.verification.domain import MailRoute, Verification, check_syntax, judge_route
from postline.verification.ports import MailRoutes

BUDGET_SECONDS = 10.0


class Verifier:
    def __init__(
        self,
        routes: MailRoutes,
        *,
        budget_seconds: float = BUDGET_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._routes = routes
        self._budget = budget_seconds
        self._monotonic = monotonic

    def verify(self, addresses: list[str]) -> dict[str, Verification]:
        deadline = self._monotonic() + self._budget
        routes: dict[str, MailRoute] = {}
        results: dict[str, Verification] = {}
        for address in addresses:
            invalid = check_syntax(address)
            if invalid is not None:
                results[address] = invalid
                continue
            domain = domain_of(address)
            if domain not in routes:
                in_time = self._monotonic() < deadline
                routes[domain] = (
                    self._routes.route(domain)
                    if in_time
                    else MailRoute(lookup_error="not looked up: time budget spent")
                )
            results[address] = judge_route(domain, routes[domain])
        return results
