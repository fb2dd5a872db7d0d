"""The content check's rules and score (content_checks/domain.py), its services over fakes, and the
dispatcher keeping a test-mode message's copy and check (delivery/service.py)."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

import pytest

from postline.content_checks.domain import (
    WEIGHTS,
    Draft,
    Part,
    PartName,
    SpamHit,
    SpamReport,
    Status,
    Verdict,
    check_draft,
    content_part,
    overall,
    parse_report,
)
from postline.content_checks.service import ContentChecker, KeptCopies, copy_name
from postline.delivery.copies import check_basis
from postline.delivery.service import Dispatcher
from postline.domains.domain import DnsRecord, DomainStatus, RecordPurpose, RecordType, SendingDomain
from postline.events.domain import EventType
from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import Content, Message, RecipientState
from postline.tracking.domain import LinkMaker
from tests.fakes.content_checks import FixedComplaints, FixedSpam, InMemoryCopies, PlainSealer
from tests.fakes.delivery import ScriptedTransport
from tests.fakes.sending import InMemoryMessages, PlainVault, RecordingQueue
from tests.fakes.shared import DEFAULT_START, FixedClock, RecordingMeter
from tests.fakes.suppressions import InMemorySuppressions
from tests.fakes.usage import UnlimitedQuotas

DOMAIN = "shop.example"
TRACKING = "api.postline.test"
REPORT_BODY = """Spam detection software, running on the system "vm",
has identified this incoming email as possible spam.

Content analysis details:   (1003.3 points, 5.0 required)

 pts rule name              description
---- ---------------------- --------------------------------------------------
-0.0 NO_RECEIVED            Informational: message has no Received headers
 2.7 MISSING_DATE           Missing Date: header
1000 GTUBE                  BODY: Generic Test for Unsolicited Bulk Email
 0.0 HTML_IMAGE_ONLY_16     BODY: HTML: images with 1200-1600 bytes of
                            words
"""


def _domain(*missing: RecordPurpose) -> SendingDomain:
    records = [
        DnsRecord(purpose=p, type=RecordType.TXT, host=f"{p.value}.{DOMAIN}", value="v", ok=p not in missing)
        for p in (RecordPurpose.DKIM, RecordPurpose.SPF, RecordPurpose.DMARC)
    ]
    return SendingDomain(
        account_id="acct_1",
        domain=DOMAIN,
        status=DomainStatus.VERIFIED,
        dkim_selector="pl1",
        dkim_private_key="",
        id="dom_1",
        created_at=DEFAULT_START,
        records=records,
    )


def _mime(html: str | None = None, text: str | None = "Hello there.", *, unsubscribe: str | None = None) -> bytes:
    email = EmailMessage()
    email["From"] = f"hi@{DOMAIN}"
    email["To"] = "ann@example.com"
    email["Subject"] = "Hello"
    if unsubscribe:
        email["List-Unsubscribe"] = f"<{unsubscribe}>"
        email["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    if text is not None:
        email.set_content(text)
        if html is not None:
            email.add_alternative(html, subtype="html")
    elif html is not None:
        email.set_content(html, subtype="html")
    return email.as_bytes()


def _draft(html: str | None = None, text: str | None = "Hello there.", **kwargs: Any) -> Draft:
    unsubscribe = kwargs.pop("unsubscribe", f"https://{TRACKING}/v3/track/unsubscribe/tok")
    return Draft(
        mime=_mime(html, text, unsubscribe=unsubscribe),
        from_domain=DOMAIN,
        source_html=html,
        source_text=text,
        tracking_host=TRACKING,
    )


def _rules(part: Part) -> dict[str, Status]:
    return {rule.id: rule.status for rule in part.rules}


def test_the_report_table_is_read_with_wrapped_descriptions() -> None:
    report = parse_report(REPORT_BODY, 1003.3, 5.0)
    assert [(h.rule, h.points) for h in report.hits] == [
        ("NO_RECEIVED", -0.0),
        ("MISSING_DATE", 2.7),
        ("GTUBE", 1000.0),
        ("HTML_IMAGE_ONLY_16", 0.0),
    ]
    assert report.hits[3].description == "BODY: HTML: images with 1200-1600 bytes of words"


@pytest.mark.parametrize(
    ("score", "status"),
    [(0.0, Status.PASS), (2.4, Status.PASS), (2.5, Status.WARN), (4.9, Status.WARN), (5.0, Status.FAIL)],
)
def test_spamassassin_passes_under_2_5_warns_under_the_threshold_and_fails_at_it(score: float, status: Status) -> None:
    report = SpamReport(score, 5.0, [SpamHit("SOME_RULE", score, "what it matched")])
    part = check_draft(_draft(), spam=report, domain=_domain(), complaint_rate=None).parts[0]
    assert part.status is status and part.spam_score == score
    assert (part.fix is None) is (status is Status.PASS)


def test_a_clean_authenticated_message_is_good_with_every_weight_earned() -> None:
    result = check_draft(_draft(), spam=SpamReport(0.1, 5.0, []), domain=_domain(), complaint_rate=0.0)
    assert [p.status for p in result.parts] == [Status.PASS] * 4
    assert [p.weight for p in result.parts] == [35, 25, 20, 20] == list(WEIGHTS.values())
    assert (result.score, result.verdict) == (100, Verdict.GOOD)


def test_spamd_unavailable_counts_neither_way_and_says_so() -> None:
    result = check_draft(_draft(), spam=None, domain=_domain(), complaint_rate=None)
    spam = result.parts[0]
    assert spam.status is Status.UNAVAILABLE and spam.rules[0].detail.startswith("spamassassin: unavailable")
    assert (result.score, result.verdict) == (100, Verdict.GOOD)


def test_an_unverified_domain_fails_authentication_and_alignment() -> None:
    result = check_draft(_draft(), spam=SpamReport(0.1, 5.0, []), domain=None, complaint_rate=None)
    auth, bulk = result.parts[1], result.parts[2]
    assert _rules(auth) == {"spf": Status.FAIL, "dkim": Status.FAIL, "dmarc": Status.FAIL}
    assert _rules(bulk)["aligned_from"] is Status.FAIL and _rules(bulk)["dmarc_record"] is Status.FAIL
    assert result.verdict is Verdict.POOR and result.score == round(100 * (35 + 20) / 100)


def test_a_missing_dmarc_record_warns_in_authentication_and_fails_the_bulk_sender_rule() -> None:
    result = check_draft(_draft(), spam=None, domain=_domain(RecordPurpose.DMARC), complaint_rate=None)
    assert _rules(result.parts[1])["dmarc"] is Status.WARN
    assert _rules(result.parts[2])["dmarc_record"] is Status.FAIL
    assert result.parts[1].fix is not None and "_dmarc." in result.parts[1].fix


@pytest.mark.parametrize(
    ("rate", "status"), [(None, Status.PASS), (0.0009, Status.PASS), (0.001, Status.WARN), (0.003, Status.FAIL)]
)
def test_the_complaint_rate_warns_from_0_1_and_fails_from_0_3_percent(rate: float | None, status: Status) -> None:
    result = check_draft(_draft(), spam=None, domain=_domain(), complaint_rate=rate)
    assert _rules(result.parts[2])["complaint_rate"] is status


def test_no_one_click_unsubscribe_warns_twice() -> None:
    result = check_draft(_draft(unsubscribe=None), spam=None, domain=_domain(), complaint_rate=None)
    assert _rules(result.parts[2])["one_click_unsubscribe"] is Status.WARN
    assert _rules(result.parts[3])["list_unsubscribe"] is Status.WARN


def test_a_list_unsubscribe_elsewhere_is_mismatched() -> None:
    draft = _draft(unsubscribe="https://unsubscribe.other.example/x")
    assert _rules(content_part(draft))["list_unsubscribe"] is Status.WARN


def test_content_rules() -> None:
    html = (
        '<p>Hi <a href="https://bit.ly/abc">deal</a> <a href="https://www.shop.example/x">shop</a>'
        '<img src="https://cdn.other.example/a.png"></p>'
        f'<img src="https://{TRACKING}/v3/track/open/tok" width="1" height="1" alt="">'
    )
    rules = {r.id: r for r in content_part(_draft(html, None)).rules}
    assert rules["text_part"].status is Status.WARN
    assert rules["image_ratio"].status is Status.WARN and "1 image(s)" in rules["image_ratio"].detail
    assert rules["image_alt"].status is Status.WARN  # the open pixel is the service's own: not counted
    assert rules["link_hosts"].status is Status.WARN and rules["link_hosts"].detail.endswith("bit.ly.")
    assert rules["url_shorteners"].status is Status.WARN and "bit.ly" in rules["url_shorteners"].detail
    assert all(rule.fix for rule in rules.values() if rule.status is not Status.PASS)


def test_html_over_102_kb_warns() -> None:
    small, large = "<p>x</p>" * 100, "<p>" + "x" * (102 * 1024) + "</p>"
    assert _rules(content_part(_draft(small)))["html_size"] is Status.PASS
    assert _rules(content_part(_draft(large)))["html_size"] is Status.WARN


def test_the_verdict_table() -> None:
    def part(name: PartName, status: Status) -> Part:
        weight = WEIGHTS[name]
        earned = {Status.PASS: 1.0, Status.WARN: 0.5, Status.FAIL: 0.0}[status] * weight
        return Part(name=name, weight=weight, status=status, earned=earned, rules=[])

    names = list(WEIGHTS)
    assert overall([part(n, Status.PASS) for n in names]).verdict is Verdict.GOOD
    warned = overall([part(n, Status.WARN if n is PartName.CONTENT else Status.PASS) for n in names])
    assert (warned.score, warned.verdict) == (90, Verdict.REVIEW)
    failed = overall([part(n, Status.FAIL if n is PartName.CONTENT else Status.PASS) for n in names])
    assert (failed.score, failed.verdict) == (80, Verdict.POOR)


def test_a_batch_is_checked_once_per_container() -> None:
    spam = FixedSpam(SpamReport(0.5, 5.0, []))
    checker = ContentChecker(spam=spam, complaints=FixedComplaints(), clock=FixedClock(DEFAULT_START))
    first = checker.check(_draft(), account_id="acct_1", domain=_domain(), reuse="batch_1")
    again = checker.check(_draft("<p>other</p>"), account_id="acct_1", domain=_domain(), reuse="batch_1")
    alone = checker.check(_draft(), account_id="acct_1", domain=_domain())
    assert first == again == alone and len(spam.scored) == 2


def test_kept_copies_open_only_under_their_own_name() -> None:
    sealer, store = PlainSealer(), InMemoryCopies()
    copies = KeptCopies(sealer=sealer, store=store)
    copies.keep("msg_1", "ann@example.com", b"raw", 123)
    copies.keep("msg_2", "bob@example.com", b"other", None)
    assert copies.read("msg_1") == {}  # kept when flushed: the dispatcher flushes after its batch
    copies.flush()
    assert (sealer.calls, store.writes) == (1, 1)  # a batch's copies: one data key, one write
    assert copies.read("msg_1") == {"ann@example.com": b"raw"}
    assert store.expires[("msg_1", "ann@example.com")] == 123
    with pytest.raises(ValueError, match="another name"):
        sealer.open_copy(copy_name("msg_2", "ann@example.com"), store.kept["msg_1"]["ann@example.com"])


# -- the dispatcher --------------------------------------------------------------------------------


class Domains:
    def __init__(self, domain: SendingDomain | None) -> None:
        self.domain = domain
        self.counted: list[str] = []

    def is_verified(self, account_id: str, domain: str) -> bool:
        return self.domain is not None

    def verified_domain(self, account_id: str, domain: str) -> SendingDomain | None:
        return self.domain

    def count_sent(self, account_id: str, domain: str, copies: int = 1) -> None:
        self.counted.append(domain)


def _dispatch(test: bool, spam: FixedSpam) -> tuple[InMemoryMessages, InMemoryCopies, PlainSealer, Domains, Any]:
    messages, vault, store, sealer = InMemoryMessages(), PlainVault(), InMemoryCopies(), PlainSealer()
    domains = Domains(None)
    transport = ScriptedTransport()
    message = Message.model_validate(
        {
            "id": "msg_1",
            "account_id": "acct_1",
            "key_id": "key_1",
            "test": test,
            "from": f"hi@{DOMAIN}",
            "to": ["ann@example.com", "bob@example.com"],
            "subject": "Hello",
            "recipients": {"ann@example.com": RecipientState.QUEUED, "bob@example.com": RecipientState.QUEUED},
            "created_at": DEFAULT_START,
            "expires_at": 999,
        }
    )
    messages.items[message.id] = message
    vault.contents[message.id] = Content(html='<p>Hi <a href="https://shop.example/x">x</a></p>', text="Hi")
    clock = FixedClock(DEFAULT_START)
    dispatcher = Dispatcher(
        messages=messages,
        vault=vault,
        queue=RecordingQueue(),
        domains=domains,
        suppressions=InMemorySuppressions(),
        transport_for=lambda m: transport,
        verifier=None,  # type: ignore[arg-type]  # verify_before_send is off
        links=LinkMaker(f"https://{TRACKING}", b"secret"),
        retention_days=lambda account_id: 30,
        quotas=UnlimitedQuotas(),
        clock=clock,
        meter=RecordingMeter(),
        worker_id="w1",
        checker=ContentChecker(spam=spam, complaints=FixedComplaints(), clock=clock),
        copies=KeptCopies(sealer=sealer, store=store),
    )
    dispatcher.dispatch(DispatchJob(message_id="msg_1", account_id="acct_1", attempt=1, enqueued_at=DEFAULT_START))
    return messages, store, sealer, domains, transport


def test_a_test_message_keeps_each_copy_as_handed_over_and_one_check_on_its_sent_events() -> None:
    spam = FixedSpam(SpamReport(0.4, 5.0, [SpamHit("HTML_MESSAGE", 0.001, "HTML included")]))
    messages, store, sealer, domains, transport = _dispatch(True, spam)
    assert transport.handed == ["ann@example.com", "bob@example.com"]
    kept = {r: sealer.sealed[copy_name("msg_1", r)] for r in store.kept["msg_1"]}
    assert set(kept) == {"ann@example.com", "bob@example.com"}
    assert b"/v3/track/click/" in kept["ann@example.com"] and kept["ann@example.com"] != kept["bob@example.com"]
    assert store.expires[("msg_1", "ann@example.com")] == 999
    assert (sealer.calls, store.writes) == (1, 1)  # sealed and written together after the job
    assert len(spam.scored) == 1  # once per message, not per recipient
    check = messages.items["msg_1"].content_check
    assert check is not None
    sent = [e for e in messages.events if e.type is EventType.SENT]
    assert len(sent) == 2
    for event in sent:
        assert event.data["score"] == check["score"] and event.data["verdict"] == check["verdict"]
        assert event.data["spam_score"] == 0.4 and "HTML_MESSAGE" in event.data["rules"]
    assert domains.counted == []  # a test copy is not a live one: no sent_count


def test_a_live_message_keeps_nothing_and_asks_spamd_nothing() -> None:
    spam = FixedSpam(SpamReport(0.4, 5.0, []))
    messages, store, _, _, transport = _dispatch(False, spam)
    assert transport.handed == ["ann@example.com", "bob@example.com"]
    assert store.kept == {} and messages.items["msg_1"].content_check is None and spam.scored == []
    assert all("score" not in e.data for e in messages.events if e.type is EventType.SENT)


def test_a_batch_reuses_a_check_only_for_the_same_rendered_content() -> None:
    """A batch's messages differ by their vars: one whose vars change nothing the check reads (only its
    recipient) reuses an earlier one's check; one whose vars change a link is checked itself."""
    spam = FixedSpam(SpamReport(0.4, 5.0, []))
    messages, vault, store, sealer = InMemoryMessages(), PlainVault(), InMemoryCopies(), PlainSealer()
    clock = FixedClock(DEFAULT_START)
    plain = '<p>Hi, your order <a href="https://shop.example/orders/1">shipped</a></p>'
    bodies = {"msg_1": plain, "msg_2": plain, "msg_3": '<p>Hi, your order <a href="https://bit.ly/x1">shipped</a></p>'}
    for number, (message_id, html) in enumerate(bodies.items()):
        to = f"reader{number}@example.com"
        messages.items[message_id] = Message.model_validate(
            {"id": message_id, "account_id": "acct_1", "key_id": "key_1", "test": True, "batch_id": "batch_1",
             "from": f"hi@{DOMAIN}", "to": [to], "subject": "Shipped", "recipients": {to: RecipientState.QUEUED},
             "created_at": DEFAULT_START}
        )  # fmt: skip
        vault.contents[message_id] = Content(html=html, text="Hi, your order shipped.")
    dispatcher = Dispatcher(
        messages=messages, vault=vault, queue=RecordingQueue(), domains=Domains(None),
        suppressions=InMemorySuppressions(), transport_for=lambda m: ScriptedTransport(),
        verifier=None,  # type: ignore[arg-type]  # verify_before_send is off
        links=LinkMaker(f"https://{TRACKING}", b"secret"), retention_days=lambda account_id: 30,
        quotas=UnlimitedQuotas(), clock=clock, meter=RecordingMeter(), worker_id="w1",
        checker=ContentChecker(spam=spam, complaints=FixedComplaints(), clock=clock),
        copies=KeptCopies(sealer=sealer, store=store),
    )  # fmt: skip
    for message_id in bodies:
        dispatcher.dispatch(DispatchJob(message_id=message_id, account_id="acct_1", attempt=1,
                                        enqueued_at=DEFAULT_START))  # fmt: skip
    checks = {m: messages.items[m].content_check for m in bodies}
    assert len(spam.scored) == 2  # msg_2 reused msg_1's check; msg_3 was checked itself

    def shorteners(message_id: str) -> str:
        check = checks[message_id]
        assert check is not None
        (content,) = [part for part in check["parts"] if part["name"] == "content"]
        (rule,) = [rule for rule in content["rules"] if rule["id"] == "url_shorteners"]
        return str(rule["status"])

    assert checks["msg_2"] == checks["msg_1"] and shorteners("msg_1") == "pass"
    assert shorteners("msg_3") == "warn" and checks["msg_3"] != checks["msg_1"]
    (sent,) = [e for e in messages.events if e.type is EventType.SENT and e.message_id == "msg_3"]
    assert sent.data["score"] == checks["msg_3"]["score"]  # type: ignore[index]


def _basis(**changes: Any) -> str:
    message = Message.model_validate(
        {"id": "msg_1", "account_id": "acct_1", "key_id": "key_1", "test": True, "batch_id": "batch_1",
         "from": f"hi@{DOMAIN}", "to": ["ann@example.com"], "subject": "Shipped", "created_at": DEFAULT_START}
    )  # fmt: skip
    content = Content(html="<p>Hi</p>", text="Hi", vars={"name": "Ann"})
    message = message.model_copy(update={k: v for k, v in changes.items() if k in Message.model_fields})
    content = content.model_copy(update={k: v for k, v in changes.items() if k in Content.model_fields})
    return check_basis(message, content)


def test_the_check_basis_ignores_recipients_and_ids_and_sees_what_the_check_reads() -> None:
    same = [_basis(), _basis(id="msg_2", to=["bob@example.com"], cc=["cy@example.com"], vars={"name": "Bob"})]
    assert len(set(same)) == 1
    changed = [
        _basis(subject="Shipped!"), _basis(html="<p>Hi <a href='https://bit.ly/x'>x</a></p>"), _basis(text="Hi!"),
        _basis(headers={"List-Unsubscribe": "<mailto:u@example.com>"}), _basis(track_clicks=False),
        _basis(reply_to="help@example.com"), _basis(list_id="list_1"),
    ]  # fmt: skip
    assert len({*same, *changed}) == 1 + len(changed)
