"""The catch-all scoring of a bulk job's catch_all_processing phase (verification/catch_all.py)."""

from __future__ import annotations

import pytest

from postline.shared.verification_results import VerificationResult
from postline.verification.catch_all import BOUNCED, ENGAGED, score_catch_all
from postline.verification.domain import Recommendation, Risk
from postline.verification.models import Activity, ValidationResult

REASON = "catchall.test's mail server accepts every address, so this one cannot be confirmed"


def result(
    status: VerificationResult = VerificationResult.CATCH_ALL, sub_status: str = "accept_all"
) -> ValidationResult:
    catch_all = status is VerificationResult.CATCH_ALL
    return ValidationResult(
        verification_id="ver_1",
        address="ann@catchall.test",
        is_valid=False,
        result=status,
        status=status,
        sub_status=sub_status,
        recommendation=Recommendation.CAUTION if catch_all else Recommendation.MAIL,
        confidence=0.5 if catch_all else 0.95,
        risk=Risk.MEDIUM if catch_all else Risk.LOW,
        reason=REASON,
        did_you_mean=None,
        account="ann",
        domain="catchall.test",
        mx_provider=None,
        mx_record="mx.catchall.test",
        mx_found=True,
        is_catch_all=catch_all,
        is_disposable=False,
        is_role_address=False,
        is_free_provider=False,
        smtp_check=True,
        domain_age_days=2_000,
        activity=Activity(),
    )


def test_opened_or_clicked_is_a_person_reading_it() -> None:
    for activity in (Activity(seen=True, opened=1), Activity(seen=True, clicked=3, bounced=1)):
        scored = score_catch_all(result(), activity)
        assert (scored.status, scored.sub_status, scored.recommendation, scored.risk, scored.confidence) == (
            VerificationResult.CATCH_ALL,
            ENGAGED,
            Recommendation.MAIL,
            Risk.LOW,
            0.85,
        )
        assert scored.activity == activity and scored.reason.startswith(REASON + "; scored: ")


def test_bounced_and_never_opened_is_suppressed() -> None:
    scored = score_catch_all(result(), Activity(seen=True, delivered=2, bounced=2))
    assert (scored.sub_status, scored.recommendation, scored.risk, scored.confidence) == (
        BOUNCED,
        Recommendation.SUPPRESS,
        Risk.HIGH,
        0.8,
    )
    assert "bounced 2 times" in scored.reason


@pytest.mark.parametrize("activity", [Activity(), Activity(seen=True, total_sends=5, delivered=5)])
def test_no_evidence_leaves_it_as_the_mailbox_checks_said(activity: Activity) -> None:
    scored = score_catch_all(result(), activity)
    assert scored == result().model_copy(update={"activity": activity})


def test_scoring_again_gives_the_same_result_and_follows_new_history() -> None:
    once = score_catch_all(result(), Activity(seen=True, bounced=1))
    assert score_catch_all(once, Activity(seen=True, bounced=1)) == once
    opened = score_catch_all(once, Activity(seen=True, bounced=1, opened=1))
    assert opened.sub_status == ENGAGED and opened.reason.count("; scored:") == 1
    erased = score_catch_all(opened, Activity())  # the history was erased since: back to unscored
    assert erased == result()


def test_other_results_are_left_alone() -> None:
    valid = result(VerificationResult.VALID, "")
    assert score_catch_all(valid, Activity(seen=True, bounced=4)) is valid
