"""Idempotency-Key on the send routes, with Powertools idempotency over DynamoDB.

A replay of a completed request returns the stored result; while the first is still running
the replay gets 409 idempotency_in_progress; the same key with another body is a 400. Records
are per account and route and live for 24 hours. The in-progress record expires with the
Lambda's remaining time, so a request that died mid-way does not block its key for a day.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyValidationError,
)
from aws_lambda_powertools.utilities.idempotency.serialization.pydantic import PydanticSerializer
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel

from postline import wiring
from postline.shared.errors import Conflict, ValidationFailed

HEADER = "idempotency-key"
MAX_KEY_LENGTH = 255
EXPIRES_AFTER_SECONDS = 24 * 3600
Result = TypeVar("Result", bound=BaseModel)


@cache
def _persistence(table: str) -> DynamoDBPersistenceLayer:
    return DynamoDBPersistenceLayer(table_name=table, boto3_client=wiring.client("dynamodb"))


def once(
    key: str | None,
    *,
    scope: str,
    account_id: str,
    body: Any,
    model: type[Result],
    produce: Callable[[], Result],
    lambda_context: LambdaContext | None,
) -> Result:
    """produce() at most once per (account, scope, key); without a key, simply produce()."""
    if key is None:
        return produce()
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not key.isprintable():
        raise ValidationFailed(f"Idempotency-Key: 1-{MAX_KEY_LENGTH} printable characters.")
    config = IdempotencyConfig(
        event_key_jmespath="[account, key]",
        payload_validation_jmespath="body",
        expires_after_seconds=EXPIRES_AFTER_SECONDS,
        hash_function="sha256",
    )
    if lambda_context is not None:
        config.register_lambda_context(lambda_context)

    @idempotent_function(
        data_keyword_argument="request",
        persistence_store=_persistence(wiring.settings().idempotency_table),
        config=config,
        output_serializer=PydanticSerializer(model),
        key_prefix=f"postline.{scope}",
    )
    def run(request: dict[str, Any]) -> Result:
        return produce()

    try:
        result: Result = run(request={"account": account_id, "key": key, "body": body})
    except IdempotencyAlreadyInProgressError as error:
        raise Conflict(
            "A request with this Idempotency-Key is still being processed; retry shortly for its result.",
            code="idempotency_in_progress",
            retry_after=1,
        ) from error
    except IdempotencyValidationError as error:
        raise ValidationFailed(
            "This Idempotency-Key was already used with a different request body; use a new key."
        ) from error
    return result
