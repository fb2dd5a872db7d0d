"""List evaluation (POST /v3/validate/evaluate): what a list looks like before it is verified,
from the checks that need no network and spend no credit: syntax (email-validator), duplicates,
disposable and free-provider domains, role addresses and typos (verification/lists.py).

Lists of up to SAMPLE_SIZE distinct addresses are read whole. Larger ones are judged on a uniform
random sample of SAMPLE_SIZE distinct addresses (seeded by the list, so the same list gets the
same answer); each percentage is then an estimate whose 95% margin of error is at most
`margin_of_error_pct` percentage points (normal approximation with the finite-population
correction: 1.96 * sqrt(p(1-p)/n * (N-n)/(N-1)) at p = 0.5; under 1 point for n = 10,000).
Counts are scaled to the whole list. Duplicates are always counted over the whole list.

quality_score = 100 * (1 - bad - 0.5 * role - 0.25 * duplicates), clamped to 0-100, where bad is
the share of distinct addresses that cannot take mail as written (syntax errors, disposable
domains, typos), role the share of role addresses and duplicates the share of repeated entries;
estimated_deliverable_pct = 100 * (1 - bad). recommendation: good at 90 and above, needs_cleaning
from 70, else poor. The mailbox itself is not asked (that is what a verification is for).
"""

from __future__ import annotations

import hashlib
import math
import random
from enum import StrEnum

from email_validator import EmailNotValidError
from pydantic import ConfigDict, Field

from postline.shared.addresses import checked_address
from postline.shared.base import Model
from postline.verification import domain_lists as lists
from postline.verification.bulk import distinct

SAMPLE_SIZE = 10_000
MAX_ADDRESSES = 100_000  # a request body of ~3 MB: well inside API Gateway's 10 MB


class EvaluationRecommendation(StrEnum):
    GOOD = "good"
    NEEDS_CLEANING = "needs_cleaning"
    POOR = "poor"


class EvaluateRequest(Model):
    model_config = ConfigDict(extra="forbid")

    emails: list[str] = Field(min_length=1, max_length=MAX_ADDRESSES)


class Share(Model):
    count: int
    percentage: float = Field(description="Of the distinct addresses, 0-100.")


class EmailListEvaluation(Model):
    total_count: int
    unique_count: int
    duplicate_count: int
    syntax_errors: Share
    disposable: Share
    role_based: Share
    free_provider: Share
    typo_detected: Share
    quality_score: int = Field(ge=0, le=100)
    estimated_deliverable_pct: float
    recommendation: EvaluationRecommendation
    sample_size: int = Field(description="Distinct addresses read; less than unique_count when sampled.")
    margin_of_error_pct: float = Field(description="95% margin of each percentage, in points; 0 when not sampled.")


def evaluate(addresses: list[str]) -> EmailListEvaluation:
    unique = distinct(addresses)
    population = len(unique)
    sample = unique
    if population > SAMPLE_SIZE:
        seed = int.from_bytes(hashlib.sha256("\n".join(unique).encode()).digest()[:8], "big")
        sample = random.Random(seed).sample(unique, SAMPLE_SIZE)
    counts = {"syntax": 0, "disposable": 0, "role": 0, "free": 0, "typo": 0, "bad": 0}
    for address in sample:
        try:
            checked = checked_address(address)
        except EmailNotValidError:
            counts["syntax"] += 1
            counts["bad"] += 1
            continue
        domain = checked.ascii_domain.lower()
        disposable, typo = lists.is_disposable(domain), lists.did_you_mean(domain) is not None
        counts["disposable"] += disposable
        counts["typo"] += typo
        counts["bad"] += disposable or typo
        counts["role"] += lists.is_role(checked.local_part)
        counts["free"] += lists.is_free_provider(domain)
    n = len(sample)

    def share(name: str) -> Share:
        fraction = counts[name] / n
        return Share(count=round(fraction * population), percentage=round(100 * fraction, 2))

    duplicates = len(addresses) - population
    bad, role = counts["bad"] / n, counts["role"] / n
    score = round(100 * (1 - bad - 0.5 * role - 0.25 * duplicates / len(addresses)))
    score = max(0, min(100, score))
    margin = 0.0
    if n < population:
        margin = 100 * 1.96 * math.sqrt(0.25 / n * (population - n) / (population - 1))
    return EmailListEvaluation(
        total_count=len(addresses),
        unique_count=population,
        duplicate_count=duplicates,
        syntax_errors=share("syntax"),
        disposable=share("disposable"),
        role_based=share("role"),
        free_provider=share("free"),
        typo_detected=share("typo"),
        quality_score=score,
        estimated_deliverable_pct=round(100 * (1 - bad), 2),
        recommendation=(
            EvaluationRecommendation.GOOD
            if score >= 90
            else EvaluationRecommendation.NEEDS_CLEANING
            if score >= 70
            else EvaluationRecommendation.POOR
        ),
        sample_size=n,
        margin_of_error_pct=round(margin, 2),
    )
