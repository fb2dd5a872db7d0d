"""Postline's Python SDK: `Postline` for sends, events and retries; `postline_sdk.generated` for
every route of the OpenAPI document; `postline_sdk.webhooks` to verify what a webhook receives."""

from postline_sdk.client import Postline, PostlineError
from postline_sdk.retries import RetryingTransport, RetryPolicy
from postline_sdk.webhooks import WebhookVerificationError, public_keys, verify_ed25519, verify_hmac

__all__ = [
    "Postline",
    "PostlineError",
    "RetryPolicy",
    "RetryingTransport",
    "WebhookVerificationError",
    "public_keys",
    "verify_ed25519",
    "verify_hmac",
]
