"""Clients for moto's in-process mock (`mock_aws`) in a worker that may also host a runtime.

The runtime points AWS_ENDPOINT_URL at its emulator, and its functions create their clients lazily
from the process's environment: taking the variable away, even for one test, lets a function that
starts meanwhile keep a client aimed at the real AWS endpoint for the rest of the session. So these
clients ignore configured endpoints instead, leaving the environment as it is."""

from __future__ import annotations

from typing import Any

import boto3
from botocore.config import Config

_DEFAULT_ENDPOINTS = Config(ignore_configured_endpoint_urls=True)


def in_process_client(service: str) -> Any:
    """A client on the service's default AWS endpoint, which `mock_aws` intercepts."""
    return boto3.client(service, region_name="us-east-1", config=_DEFAULT_ENDPOINTS)
