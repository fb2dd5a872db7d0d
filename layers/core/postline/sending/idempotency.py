"""Idempotency-Key replays of the send use cases, with Powertools idempotency over DynamoDB.

A replay of a completed request returns the stored result; while the first is still running
the replay gets 409 idempotency_in_progress; the same key with another body is a 400. Records
are per account, environment and use case, as Stripe scopes its keys: a key used with a test key
means nothing to a live one (the same key and body must send the live email). They live for 24
hours. The in-progress record expires with the
Lambda's remaining time, so a request that died mid-way does not block its key for a day.
"""

from __future__ import annotations

from collections.abc import Callable
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
from pydantic import BaseModel

from postline.keys.access import Environment
from postline.sending.domain import IdempotentCall
from postline.shared.errors import Conflict, ValidationFailed

EXPIRES_AFTER_SECONDS = 24 * 3600
Result = TypeVar("Result", bound=BaseModel)


class _Remaining:
    """What Powertools reads of a LambdaContext to expire an in-progress record."""

    def __init__(self, remaining_ms: Callable[[], int]) -> None:
        self.get_remaining_time_in_millis = remaining_ms


class PowertoolsIdempotency:
    def __init__(self, client: Any, table: str) -> None:
        self._persistence = DynamoDBPersistenceLayer(table_name=table, boto3_client=client)

    def once(
        self,
        call: IdempotentCall,
        *,
        scope: str,
        account_id: str,
        env: Environment,
        model: type[Result],
        produce: Callable[[], Result],
    ) -> Result:
        config = IdempotencyConfig(
            event_key_jmespath="[account, env, key]",
            payload_validation_jmespath="body",
            expires_after_seconds=EXPIRES_AFTER_SECONDS,
            hash_function="sha256",
        )
        if call.remaining_ms is not None:
            config.register_lambda_context(_Remaining(call.remaining_ms))  # type: ignore[arg-type]

        @idempotent_function(
            data_keyword_argument="request",
            persistence_store=self._persistence,
            config=config,
            output_serializer=PydanticSerializer(model),
            key_prefix=f"postline.{scope}",
        )
        def run(request: dict[str, Any]) -> Result:
            return produce()

        try:
            result: Result = run(request={"account": account_id, "env": env.value, "key": call.key, "body": call.body})
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
