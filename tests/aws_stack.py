"""The template's resources in moto, in-process, for adapter and handler tests.

Built from template.yaml by the embedded runtime's own provisioning code: tests never copy a
table schema by hand, so they cannot drift from the infrastructure.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from devtools.local.cloudformation import Resolver, Template
from devtools.local.functions import LocalFunction, function_environment, load_functions
from devtools.local.provisioning import deploy
from postline import wiring

ROOT = Path(__file__).resolve().parent.parent
REGION = "us-east-1"


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
def in_process_stack(parameters: dict[str, str] | None = None) -> Iterator[InProcessStack]:
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
        with mock_aws():
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
