"""The deliverability check of one rendered message: four parts, each with a weight, an overall score.

| part            | weight | what it looks at                                                          |
|-----------------|--------|---------------------------------------------------------------------------|
| spamassassin    | 35     | spamd's score (network tests off): < 2.5 pass, < 5 warn, >= 5 fail         |
| authentication  | 25     | SPF, DKIM and DMARC of the From domain, from the domain's own DNS checks  |
| bulk_sender     | 20     | Gmail/Yahoo: one-click unsubscribe, DMARC record, aligned From, complaints |
| content         | 20     | text part, HTML size, images, link hosts, shorteners, List-Unsubscribe     |

A part is as good as its worst rule; it earns its weight on pass, half on warn, nothing on fail.
The score is what the parts earned over what the available ones could (a part that could not run,
spamd unavailable, counts neither way), 0-100. Verdict: `poor` when a part fails or the score is
under 50, `review` when a part warns or the score is under 80, else `good`.
Pure: the message arrives as bytes, spamd's report and the domain's checks as values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from enum import StrEnum
from html.parser import HTMLParser
from urllib.parse import urlsplit

from antispam_link_shorteners import is_link_shortener
from pydantic import Field

from postline.domains.domain import RecordPurpose, SendingDomain
from postline.shared.base import Model

GMAIL_CLIP_BYTES = 102 * 1024  # Gmail shows "[Message clipped]" past this much HTML
SPAM_PASS_BELOW = 2.5
SPAM_THRESHOLD = 5.0  # spamd's required_score: at or above it, SpamAssassin calls it spam
COMPLAINTS_WARN = 0.001  # Gmail's and Yahoo's guidance: stay under 0.1%, never reach 0.3%
COMPLAINTS_FAIL = 0.003
MIN_TEXT_PER_IMAGE = 200  # visible characters of text per image below which the mail looks image-only
GOOD_FROM = 80
REVIEW_FROM = 50


class Status(StrEnum):
    PASS = "pass"  # noqa: S105 (a status, not a password)
    WARN = "warn"
    FAIL = "fail"
    UNAVAILABLE = "unavailable"  # the part could not run (spamd not reachable)


class Verdict(StrEnum):
    GOOD = "good"
    REVIEW = "review"
    POOR = "poor"


class PartName(StrEnum):
    SPAMASSASSIN = "spamassassin"
    AUTHENTICATION = "authentication"
    BULK_SENDER = "bulk_sender"
    CONTENT = "content"


WEIGHTS: dict[PartName, int] = {
    PartName.SPAMASSASSIN: 35,
    PartName.AUTHENTICATION: 25,
    PartName.BULK_SENDER: 20,
    PartName.CONTENT: 20,
}
_EARNED = {Status.PASS: 1.0, Status.WARN: 0.5, Status.FAIL: 0.0}
_ORDER = {Status.PASS: 0, Status.UNAVAILABLE: 0, Status.WARN: 1, Status.FAIL: 2}


class Rule(Model):
    """One rule of a part: what it found and, unless it passed, the one-line fix."""

    id: str
    status: Status
    detail: str
    fix: str | None = None
    points: float | None = None  # a SpamAssassin rule's points


class Part(Model):
    name: PartName
    weight: int
    status: Status
    earned: float = Field(description="weight x 1 (pass), 0.5 (warn) or 0 (fail); 0 when unavailable")
    fix: str | None = None  # the first fix of its worst rule
    rules: list[Rule]
    spam_score: float | None = None  # spamassassin only: spamd's score
    spam_threshold: float | None = None


class ContentCheck(Model):
    """What POST /v3/messages/check answers, and what a test-mode message carries."""

    score: int = Field(ge=0, le=100)
    verdict: Verdict
    parts: list[Part]

    def event_data(self) -> dict[str, object]:
        """The `sent` event's summary: the score, the verdict, spamd's score and every rule that hit."""
        spam = next(p for p in self.parts if p.name is PartName.SPAMASSASSIN)
        hits = [r.id for p in self.parts for r in p.rules if r.status in (Status.WARN, Status.FAIL)]
        hits += [r.id for r in spam.rules if r.points is not None and r.points > 0 and r.id not in hits]
        return {"score": self.score, "verdict": self.verdict.value, "spam_score": spam.spam_score, "rules": hits}


@dataclass(frozen=True)
class SpamHit:
    rule: str
    points: float
    description: str


@dataclass(frozen=True)
class SpamReport:
    score: float
    threshold: float
    hits: list[SpamHit]


@dataclass(frozen=True)
class Draft:
    """What a check reads: the copy as the recipient gets it, and the bodies before tracking (links as
    the sender wrote them: a tracked copy's links all point at the tracking host)."""

    mime: bytes
    from_domain: str
    source_html: str | None
    source_text: str | None
    tracking_host: str | None  # where tracked links and the unsubscribe URL point


def spam_part(report: SpamReport | None) -> Part:
    if report is None:
        rule = Rule(
            id="spamd",
            status=Status.UNAVAILABLE,
            detail="spamassassin: unavailable (no spamd reachable); the other parts still ran.",
        )
        return _part(PartName.SPAMASSASSIN, [rule], available=False)
    status = Status.PASS if report.score < SPAM_PASS_BELOW else Status.WARN
    if report.score >= report.threshold:
        status = Status.FAIL
    top = max(report.hits, key=lambda hit: hit.points, default=None)
    fix = None
    if status is not Status.PASS and top is not None:
        fix = f"Change what {top.rule} matches ({top.description}): it adds {top.points:g} points."
    summary = Rule(
        id="spam_score",
        status=status,
        detail=f"SpamAssassin scores {report.score:g} (spam at {report.threshold:g}).",
        fix=fix,
    )
    hits = [
        Rule(id=hit.rule, status=Status.PASS, detail=hit.description, points=hit.points)
        for hit in sorted(report.hits, key=lambda hit: -hit.points)
    ]
    part = _part(PartName.SPAMASSASSIN, [summary, *hits])
    return part.model_copy(update={"spam_score": report.score, "spam_threshold": report.threshold})


def authentication_part(from_domain: str, domain: SendingDomain | None) -> Part:
    if domain is None:
        detail = f"{from_domain} is not a verified sending domain of this account: nothing signs or aligns."
        fix = f"Add {from_domain} (POST /v3/domains), publish its records and check it until it is verified."
        rules = [Rule(id=rule, status=Status.FAIL, detail=detail, fix=fix) for rule in ("spf", "dkim", "dmarc")]
        return _part(PartName.AUTHENTICATION, rules)
    rules = [
        _record_rule(
            "spf",
            domain,
            RecordPurpose.SPF,
            f"SPF passes for the return path {domain.return_path_host}, aligned with {domain.domain}.",
            f"Publish the SPF record at {domain.return_path_host} and check the domain again.",
        ),
        _record_rule(
            "dkim",
            domain,
            RecordPurpose.DKIM,
            f"Signed with DKIM as d={domain.domain} (selector {domain.dkim_selector}), aligned with From.",
            f"Publish the DKIM record {domain.dkim_selector}._domainkey.{domain.domain} and check the domain again.",
        ),
        _record_rule(
            "dmarc",
            domain,
            RecordPurpose.DMARC,
            f"A DMARC record is published at _dmarc.{domain.domain}; SPF and DKIM align with it.",
            f"Publish a DMARC record at _dmarc.{domain.domain} (e.g. v=DMARC1; p=none).",
            missing=Status.WARN,
        ),
    ]
    return _part(PartName.AUTHENTICATION, rules)


def bulk_sender_part(draft: Draft, domain: SendingDomain | None, complaint_rate: float | None) -> Part:
    email = _parsed(draft.mime)
    rules = [_one_click(email)]
    if domain is None:
        rules.append(
            Rule(
                id="dmarc_record",
                status=Status.FAIL,
                detail=f"{draft.from_domain} is not verified here: its DMARC record is unknown.",
                fix=f"Verify {draft.from_domain} and publish a DMARC record at _dmarc.{draft.from_domain}.",
            )
        )
        rules.append(
            Rule(
                id="aligned_from",
                status=Status.FAIL,
                detail=f"From {draft.from_domain} is not signed by its own domain.",
                fix=f"Send from a verified domain of the account, or verify {draft.from_domain}.",
            )
        )
    else:
        dmarc = domain.ok(RecordPurpose.DMARC)
        rules.append(
            Rule(
                id="dmarc_record",
                status=Status.PASS if dmarc else Status.FAIL,
                detail=f"DMARC record at _dmarc.{domain.domain}: {'found' if dmarc else 'missing'}.",
                fix=None if dmarc else f"Publish a DMARC record at _dmarc.{domain.domain} (v=DMARC1; p=none at least).",
            )
        )
        aligned = domain.ok(RecordPurpose.DKIM)
        rules.append(
            Rule(
                id="aligned_from",
                status=Status.PASS if aligned else Status.FAIL,
                detail=f"From {draft.from_domain} is DKIM-signed by d={domain.domain}."
                if aligned
                else f"{domain.domain}'s DKIM record is not found: From does not align.",
                fix=None if aligned else "Publish the domain's DKIM record and check it again.",
            )
        )
    rules.append(_complaints(complaint_rate))
    return _part(PartName.BULK_SENDER, rules)


def content_part(draft: Draft) -> Part:
    email = _parsed(draft.mime)
    html_part = email.get_body(preferencelist=("html",))
    text_part = email.get_body(preferencelist=("plain",))
    html = str(html_part.get_content()) if isinstance(html_part, EmailMessage) else None
    rules: list[Rule] = []
    rules.append(
        Rule(id="text_part", status=Status.PASS, detail="A text/plain part is present.")
        if text_part is not None
        else Rule(
            id="text_part",
            status=Status.WARN,
            detail="No text/plain part: filters and text-only clients see HTML alone.",
            fix="Send `text` beside `html` (or give the template a text_body).",
        )
    )
    size = len(html.encode()) if html is not None else 0
    rules.append(
        Rule(
            id="html_size",
            status=Status.PASS,
            detail=f"HTML is {size:,} bytes (Gmail clips past {GMAIL_CLIP_BYTES:,}).",
        )
        if size <= GMAIL_CLIP_BYTES
        else Rule(
            id="html_size",
            status=Status.WARN,
            detail=f"HTML is {size:,} bytes: Gmail clips past {GMAIL_CLIP_BYTES:,} (the rest and the open pixel).",
            fix="Trim the HTML under 102 KB: inline less CSS, drop comments and repeated markup.",
        )
    )
    page = _Page()
    if html is not None:
        page.feed(html)
        page.close()
    text_chars = len(" ".join(" ".join(page.text).split())) if html is not None else 0
    # The open pixel is the service's own (on the tracking host): neither an image nor one without alt.
    shown = [(src, alt) for src, alt in page.images if not draft.tracking_host or _host(src) != draft.tracking_host]
    images = len(shown)
    if images and text_chars < MIN_TEXT_PER_IMAGE * images:
        rules.append(
            Rule(
                id="image_ratio",
                status=Status.WARN,
                detail=f"{images} image(s) for {text_chars} characters of text: mostly images reads as spam.",
                fix=f"Add text (about {MIN_TEXT_PER_IMAGE} characters per image) or use fewer images.",
            )
        )
    else:
        rules.append(
            Rule(id="image_ratio", status=Status.PASS, detail=f"{images} image(s), {text_chars} characters of text.")
        )
    no_alt = [src for src, alt in shown if alt is None or not alt.strip()]
    rules.append(
        Rule(id="image_alt", status=Status.PASS, detail="Every image has alt text.")
        if not no_alt
        else Rule(
            id="image_alt",
            status=Status.WARN,
            detail=f"{len(no_alt)} image(s) without alt text, e.g. {no_alt[0][:120]}.",
            fix='Give every <img> an alt="..." that says what it shows.',
        )
    )
    source_links = _links(draft.source_html) + _text_links(draft.source_text)
    foreign = sorted({host for host in map(_host, source_links) if host and not _ours(host, draft)})
    rules.append(
        Rule(id="link_hosts", status=Status.PASS, detail="Every link points at the sending or tracking domain.")
        if not foreign
        else Rule(
            id="link_hosts",
            status=Status.WARN,
            detail=f"Links to {len(foreign)} other host(s): {', '.join(foreign[:5])}.",
            fix=f"Link through {draft.from_domain} (or its tracking subdomain) where you can.",
        )
    )
    short = sorted({_host(url) or url for url in source_links if _shortener(url)})
    rules.append(
        Rule(id="url_shorteners", status=Status.PASS, detail="No URL shortener links.")
        if not short
        else Rule(
            id="url_shorteners",
            status=Status.WARN,
            detail=f"Links through URL shorteners: {', '.join(short[:5])}.",
            fix="Link to the destination itself: shorteners hide it and are widely blocklisted.",
        )
    )
    rules.append(_list_unsubscribe(email, draft))
    return _part(PartName.CONTENT, rules)


def overall(parts: list[Part]) -> ContentCheck:
    available = [p for p in parts if p.status is not Status.UNAVAILABLE]
    possible = sum(p.weight for p in available)
    score = round(100 * sum(p.earned for p in available) / possible) if possible else 0
    statuses = {p.status for p in available}
    if Status.FAIL in statuses or score < REVIEW_FROM:
        verdict = Verdict.POOR
    elif Status.WARN in statuses or score < GOOD_FROM:
        verdict = Verdict.REVIEW
    else:
        verdict = Verdict.GOOD
    return ContentCheck(score=score, verdict=verdict, parts=parts)


def check_draft(
    draft: Draft, *, spam: SpamReport | None, domain: SendingDomain | None, complaint_rate: float | None
) -> ContentCheck:
    return overall(
        [
            spam_part(spam),
            authentication_part(draft.from_domain, domain),
            bulk_sender_part(draft, domain, complaint_rate),
            content_part(draft),
        ]
    )


_REPORT_LINE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$")


def parse_report(body: str, score: float, threshold: float) -> SpamReport:
    """spamd's REPORT body: the table under "pts rule name description" (continuation lines indented)."""
    hits: list[SpamHit] = []
    table = False
    for line in body.splitlines():
        if line.startswith("---- "):
            table = True
            continue
        if not table or not line.strip():
            continue
        found = _REPORT_LINE.match(line)
        if found:
            hits.append(SpamHit(found.group(2), float(found.group(1)), found.group(3).strip()))
        elif hits:  # a wrapped description
            last = hits[-1]
            hits[-1] = SpamHit(last.rule, last.points, f"{last.description} {line.strip()}")
    return SpamReport(score=score, threshold=threshold, hits=hits)


# -- the rules' helpers --------------------------------------------------------------------------


def _part(name: PartName, rules: list[Rule], *, available: bool = True) -> Part:
    weight = WEIGHTS[name]
    if not available:
        return Part(name=name, weight=weight, status=Status.UNAVAILABLE, earned=0, rules=rules)
    worst = max((r.status for r in rules), key=lambda status: _ORDER[status], default=Status.PASS)
    fix = next((r.fix for r in rules if r.status is worst and r.fix), None)
    return Part(name=name, weight=weight, status=worst, earned=weight * _EARNED[worst], fix=fix, rules=rules)


def _record_rule(
    rule: str, domain: SendingDomain, purpose: RecordPurpose, ok: str, fix: str, *, missing: Status = Status.FAIL
) -> Rule:
    if domain.ok(purpose):
        return Rule(id=rule, status=Status.PASS, detail=ok)
    found = next((r for r in domain.records if r.purpose is purpose), None)
    what = f"{found.finding.value}{f' ({found.detail})' if found and found.detail else ''}" if found else "missing"
    return Rule(id=rule, status=missing, detail=f"{rule.upper()} record of {domain.domain}: {what}.", fix=fix)


def _one_click(email: EmailMessage) -> Rule:
    header = str(email.get("List-Unsubscribe", ""))
    post = str(email.get("List-Unsubscribe-Post", ""))
    https = [url for url in re.findall(r"<([^>]+)>", header) if _secure_url(url)]
    if https and post.strip() == "List-Unsubscribe=One-Click":
        return Rule(id="one_click_unsubscribe", status=Status.PASS, detail="RFC 8058 one-click unsubscribe is offered.")
    return Rule(
        id="one_click_unsubscribe",
        status=Status.WARN,
        detail="No RFC 8058 one-click unsubscribe (List-Unsubscribe with an https URL and List-Unsubscribe-Post).",
        fix="Configure the service's public URL (PublicBaseUrl) so every copy carries its one-click unsubscribe.",
    )


def _secure_url(url: str) -> bool:
    """https, as RFC 8058 asks; http only to a loopback host (the embedded runtime's own gateway)."""
    lowered = url.lower()
    return lowered.startswith("https://") or (lowered.startswith("http://") and _host(url) in _LOOPBACK)


_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def _complaints(rate: float | None) -> Rule:
    if rate is None:
        return Rule(id="complaint_rate", status=Status.PASS, detail="No live sends measured from this domain lately.")
    shown = f"{rate:.3%}"
    if rate < COMPLAINTS_WARN:
        return Rule(id="complaint_rate", status=Status.PASS, detail=f"Complaint rate {shown} (under 0.1%).")
    return Rule(
        id="complaint_rate",
        status=Status.WARN if rate < COMPLAINTS_FAIL else Status.FAIL,
        detail=f"Complaint rate {shown} over the last 30 days (Gmail and Yahoo: under 0.1%, never 0.3%).",
        fix="Mail only people who asked for it, make unsubscribing easy, and suppress complainers.",
    )


def _list_unsubscribe(email: EmailMessage, draft: Draft) -> Rule:
    header = str(email.get("List-Unsubscribe", ""))
    if not header:
        return Rule(
            id="list_unsubscribe",
            status=Status.WARN,
            detail="No List-Unsubscribe header.",
            fix="Configure the service's public URL (PublicBaseUrl): every copy then carries List-Unsubscribe.",
        )
    urls = re.findall(r"<([^>]+)>", header)
    hosts = {_host(url) for url in urls if url.lower().startswith("http")}
    if not urls or any(host is None or not _ours(host, draft) for host in hosts):
        return Rule(
            id="list_unsubscribe",
            status=Status.WARN,
            detail=f"List-Unsubscribe points elsewhere than the sending or tracking domain: {header[:200]}.",
            fix="Let the service add List-Unsubscribe: its URL is signed for this recipient.",
        )
    return Rule(id="list_unsubscribe", status=Status.PASS, detail="List-Unsubscribe matches the tracking domain.")


def _parsed(mime: bytes) -> EmailMessage:
    email = message_from_bytes(mime, policy=policy.default)
    assert isinstance(email, EmailMessage)
    return email


def _host(url: str) -> str | None:
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host.lower().rstrip(".") if host else None


def _ours(host: str, draft: Draft) -> bool:
    mine = draft.from_domain.lower()
    return (
        host == mine or host.endswith(f".{mine}") or (draft.tracking_host is not None and host == draft.tracking_host)
    )


def _shortener(url: str) -> bool:
    try:
        return bool(is_link_shortener(url))
    except ValueError:
        return False


def _links(html: str | None) -> list[str]:
    if not html:
        return []
    page = _Page()
    page.feed(html)
    page.close()
    return page.links


_TEXT_URL = re.compile(r"https?://[^\s<>\"')\]]+", re.IGNORECASE)


def _text_links(text: str | None) -> list[str]:
    return _TEXT_URL.findall(text or "")


class _Page(HTMLParser):
    """Links (a href), images (src, alt) and visible text of an HTML body."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.images: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            href = str(values["href"])
            if href.lower().startswith(("http://", "https://")):
                self.links.append(href)
        elif tag == "img":
            self.images.append((str(values.get("src") or ""), values.get("alt")))
        elif tag in ("style", "script", "head", "title"):
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "head", "title") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.text.append(data)
