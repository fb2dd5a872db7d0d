"""The template's resources in moto, in-process, for adapter and handler tests.

Built from template.yaml by the embedded runtime's own provisioning code: tests never copy a
table schema by hand, so they cannot drift from the infrastructure. moto runs with the embedded
runtime's patches of its backends (devtools/moto_patches, each tested to answer as moto does), so a
Query reads its partition and a transaction costs what it writes, as in the runtime and in DynamoDB:
without them a test's table of thousands of events made every Query sort the whole table.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from devtools.local.cloudformation import Resolver, Template
from devtools.local.functions import LocalFunction, function_environment, load_functions
from devtools.local.provisioning import deploy
from devtools.moto_patches import (
    action_names,
    ast_copies,
    condition_expressions,
    dynamodb_responses,
    json_errors,
    json_requests,
    moto_items,
    moto_query,
    moto_sqs,
    moto_transactions,
    update_checks,
    update_expressions,
)
from postline import wiring

ROOT = Path(__file__).resolve().parent.parent
REGION = "us-east-1"
# The emulator's patches of moto's backends and its request and answer handling; not those of its
# server (routing, keep-alive), streams' waits and trims, clock or TTL sweep, nor instance_tracking
# (mock_aws's reset relies on moto's instance lists to close S3's files).
_BACKEND_PATCHES = (
    moto_transactions,
    moto_query,
    moto_sqs,
    moto_items,
    dynamodb_responses,
    json_requests,
    update_expressions,
    action_names,
    condition_expressions,
    json_errors,
    update_checks,
    ast_copies,
)


@contextmanager
def patched_moto() -> Iterator[None]:
    """moto's backends as the emulator runs them, for a block; as they were afterwards."""
    with ExitStack() as patches:
        for patch in _BACKEND_PATCHES:
            patches.enter_context(patch.installed())
        yield


@dataclass
class InProcessStack:
    env: dict[str, str]
    functions: dict[str, LocalFunction]

    def client(self, service: str) -> Any:
        return boto3.client(service, region_name=REGION)

    def control_writes(self) -> int:
        """What the runtime's emulator counts (devtools/moto_patches/control_writes.py); moto in
        process counts nothing, so each look is a new count and the ticker's readers list again."""
        self._looks = getattr(self, "_looks", 0) + 1
        return self._looks


@contextmanager
def in_process_stack(parameters: dict[str, str] | None = None, *, patched: bool = True) -> Iterator[InProcessStack]:
    """`patched`: with the emulator's patches of moto's backends (the patches' own tests compare
    them with moto as it is, and take it unpatched)."""
    with pytest.MonkeyPatch.context() as patch:
        # A runtime started earlier in this worker points boto3 at its server; moto's in-process
        # mock only intercepts AWS hostnames, so the endpoint must go for the duration.
        patch.delenv("AWS_ENDPOINT_URL", raising=False)
        for name, value in {
            "AWS_DEFAULT_REGION": REGION,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_LOG_LEVEL": "WARNING",
        }.items():
            patch.setenv(name, value)
        with patched_moto() if patched else nullcontext(), mock_aws():
            template = Template.load(ROOT / "template.yaml")
            values = template.parameter_values(parameters or {})
            stack = deploy(template, values, lambda service: boto3.client(service, region_name=REGION))
            env = function_environment(template, Resolver(values, stack, template.conditions))
            for name, value in env.items():
                patch.setenv(name, value)
            wiring.reset()
            try:
                yield InProcessStack(env=env, functions=load_functions(template))
            finally:
                wiring.reset()
