"""Verifying recipients for real (live keys): the syntax, then where each domain's mail goes.

Each domain is looked up once per call, so a message to a thousand addresses at one provider
costs one DNS lookup, not a thousand.
"""

from __future__ import annotations

from postline.domain.messages import domain_of
from postline.domain.verification import MailRoute, Verification, check_syntax, judge_route
from postline.services.ports import MailRoutes


class Verifier:
    def __init__(self, routes: MailRoutes) -> None:
        self._routes = routes

    def verify(self, addresses: list[str]) -> dict[str, Verification]:
        routes: dict[str, MailRoute] = {}
        results: dict[str, Verification] = {}
        for address in addresses:
            invalid = check_syntax(address)
            if invalid is not None:
                results[address] = invalid
                continue
            domain = domain_of(address)
            if domain not in routes:
                routes[domain] = self._routes.route(domain)
            results[address] = judge_route(domain, routes[domain])
        return results
