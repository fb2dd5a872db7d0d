"""List evaluation: every count, the score and recommendation, and the sample for large lists."""

from __future__ import annotations

import pytest

from postline.verification.evaluation import SAMPLE_SIZE, EvaluationRecommendation, evaluate


def test_a_small_list_is_read_whole() -> None:
    emails = [
        "ada@acme.test",
        "ADA@acme.test",  # a duplicate
        "info@acme.test",  # role
        "bob@gmial.com",  # typo (and disposable: typo-squatted domains are on that list)
        "x@mailinator.com",  # disposable
        "pat@gmail.com",  # free provider
        "not-an-address",  # syntax
        "kim@acme.test",
    ]
    result = evaluate(emails).model_dump(mode="json")
    assert result == {
        "total_count": 8,
        "unique_count": 7,
        "duplicate_count": 1,
        "syntax_errors": {"count": 1, "percentage": 14.29},
        "disposable": {"count": 2, "percentage": 28.57},
        "role_based": {"count": 1, "percentage": 14.29},
        "free_provider": {"count": 1, "percentage": 14.29},
        "typo_detected": {"count": 1, "percentage": 14.29},
        # bad = (syntax 1 + disposable-or-typo 2) / 7; score = 100 * (1 - 3/7 - 0.5 * 1/7 - 0.25 * 1/8)
        "quality_score": 47,
        "estimated_deliverable_pct": 57.14,
        "recommendation": "poor",
        "sample_size": 7,
        "margin_of_error_pct": 0.0,
    }


@pytest.mark.parametrize(
    ("emails", "recommendation"),
    [
        ([f"user{n}@acme.test" for n in range(100)], EvaluationRecommendation.GOOD),
        (
            [f"user{n}@acme.test" for n in range(80)] + [f"bad{n}" for n in range(20)],
            EvaluationRecommendation.NEEDS_CLEANING,
        ),
    ],
)
def test_recommendations(emails: list[str], recommendation: EvaluationRecommendation) -> None:
    assert evaluate(emails).recommendation is recommendation


def test_a_large_list_is_judged_on_a_seeded_sample_within_its_margin() -> None:
    emails = [f"user{n}@acme.test" if n % 5 else f"user{n}@mailinator.com" for n in range(50_000)]
    first, second = evaluate(emails), evaluate(emails)
    assert first == second  # the same list, the same sample
    assert (first.unique_count, first.sample_size) == (50_000, SAMPLE_SIZE)
    assert 0.8 < first.margin_of_error_pct < 1.0
    assert abs(first.disposable.percentage - 20.0) <= first.margin_of_error_pct
    assert abs(first.disposable.count - 10_000) <= 50_000 * first.margin_of_error_pct / 100
