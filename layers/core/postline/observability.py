"""The one Logger and Tracer of the service."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Tracer

logger = Logger(service="postline")
tracer = Tracer(service="postline")
