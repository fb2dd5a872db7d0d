"""Address verification: POST /v3/validate (one address, every check, one credit), and bulk jobs:
POST /v3/validate/bulk, GET and DELETE /v3/validate/bulk/{id}, GET /v3/validate/bulk/{id}/results,
GET /v3/validate/bulk/{id}/file (the signed result file), POST /v3/validate/proofs/verify."""

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query

from postline import wiring
from postline.http.app import lambda_handler
from postline.http.context import principal
from postline.http.errors import SUCCEEDED, ErrorBody, conflict_response
from postline.verification.bulk import (
    MAX_PAGE,
    BulkCreate,
    BulkResultsPage,
    BulkVerificationJob,
    BulkVerificationJobAccepted,
)
from postline.verification.evaluation import EmailListEvaluation, EvaluateRequest, evaluate
from postline.verification.models import ValidateRequest, ValidationResult
from postline.verification.proofs import BulkResultFile, ProofVerificationResult, ProofVerifyRequest
from postline.wiring import verification

router = Router()
JobId = Annotated[str, Path(min_length=1, max_length=64, description="The job's id (vjob_...).")]


@router.post(
    "/v3/validate",
    summary="Verify one address: syntax, DNS, disposable/free/role, typo, mailbox (SMTP), domain age",
    tags=["Verification"],
    responses={
        200: {
            "description": "The verdict and every check.",
            "content": {"application/json": {"model": ValidationResult}},
        },
        402: {
            "description": "insufficient_credits: a live key with no verification credits left; nothing was checked.",
            "content": {"application/json": {"model": ErrorBody}},
        },
    },
)
def validate(request: Annotated[ValidateRequest, Body()]) -> ValidationResult:
    return verification.validation_service().validate(principal(), request)


@router.post(
    "/v3/validate/bulk",
    summary="Start a bulk verification job (test keys: completed in the reply)",
    tags=["Verification"],
    responses={
        202: {"description": "Accepted.", "content": {"application/json": {"model": BulkVerificationJobAccepted}}},
        402: {
            "description": "insufficient_credits: a live key with no verification credits left; nothing was queued.",
            "content": {"application/json": {"model": ErrorBody}},
        },
    },
)
def start_bulk_validation(request: Annotated[BulkCreate, Body()]) -> Response[BulkVerificationJobAccepted]:
    accepted = verification.bulk_verification_service().start(principal(), request)
    return Response(status_code=202, content_type="application/json", body=accepted)


@router.post(
    "/v3/validate/evaluate",
    summary="Evaluate a list without verifying it: no credits, no SMTP (large lists on a sample)",
    tags=["Verification"],
)
def evaluate_list(request: Annotated[EvaluateRequest, Body()]) -> EmailListEvaluation:
    return evaluate(request.emails)  # pure: no credits, no network (the plumbing authenticated the key)


@router.get("/v3/validate/bulk/<id>", summary="A bulk verification job: status, counts, summary", tags=["Verification"])
def get_bulk_validation(id: JobId) -> BulkVerificationJob:
    return verification.bulk_verification_service().get(principal(), id)


@router.delete(
    "/v3/validate/bulk/<id>",
    summary="Delete a bulk verification job: it stops, and its results are removed",
    tags=["Verification"],
)
def delete_bulk_validation(id: JobId) -> BulkVerificationJob:
    return verification.bulk_verification_service().delete(principal(), id)


@router.get(
    "/v3/validate/bulk/<id>/results",
    summary="A page of a bulk job's results, in the list's order (duplicates answered once)",
    tags=["Verification"],
)
def get_bulk_validation_results(
    id: JobId,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> BulkResultsPage:
    return verification.bulk_verification_service().results(principal(), id, page=page, limit=limit)


@router.get(
    "/v3/validate/bulk/<id>/file",
    summary="A completed job's result file (CSV): a 15-minute download URL and its signed proof",
    tags=["Verification"],
    responses={
        200: SUCCEEDED,
        404: {"description": "No such job, deleted or expired, or a test-mode job (no file).",
              "content": {"application/json": {"model": ErrorBody}}},
        400: {"description": "validation_error: an invalid id, or a job that failed (it has no file).",
              "content": {"application/json": {"model": ErrorBody}}},
        409: conflict_response("the job has not completed yet (it is still running, or paused for credits)"),
    },
)  # fmt: skip
def get_bulk_validation_file(id: JobId) -> BulkResultFile:
    return verification.bulk_verification_service().file(principal(), id)


@router.post(
    "/v3/validate/proofs/verify",
    summary="Check a result file (or its fingerprint and signature) against the proofs registry",
    tags=["Verification"],
)
def verify_proof(request: Annotated[ProofVerifyRequest, Body()]) -> ProofVerificationResult:
    return verification.proof_verifier().verify(request)


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
