"""Hands a webhook delivery to its Step Functions retry workflow."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError


class StepFunctionsRetry:
    def __init__(self, client: Any, state_machine_arn: Callable[[], str]) -> None:
        # Read at the first start: the attempt function, which the workflow invokes, shares this
        # service but never starts a workflow, and could not be told the workflow's ARN anyway
        # (CloudFormation would see a cycle).
        self._sfn = client
        self._arn = state_machine_arn

    def start(self, delivery_id: str, due: datetime) -> None:
        """One execution per delivery, named after it: Step Functions answers a repeated start with
        the same name and input with the running execution, so a redelivered record starts nothing."""
        document = {"delivery_id": delivery_id, "next_attempt_at": due.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}
        try:
            self._sfn.start_execution(stateMachineArn=self._arn(), name=delivery_id, input=json.dumps(document))
        except ClientError as exc:
            # The execution exists with another input: it was started earlier and has moved on.
            if exc.response["Error"]["Code"] != "ExecutionAlreadyExists":
                raise
