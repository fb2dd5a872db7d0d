"""The functions' environment as one model, read the first time wiring builds a client or store.

template.yaml's Globals give every function every variable, so one model serves all of them. The
fields of resources only some functions use default to "", and a function that lacks one fails
where it first uses it, not at cold start: per-function models, all fields required and derived
from the route table with the IAM policies, are the next step (README, Configuration).
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field

from postline.auth.ratelimit import DEFAULT_IP_RATE_LIMIT


class Settings(BaseModel):
    resources_table: str = Field(alias="RESOURCES_TABLE")
    counters_table: str = Field(alias="COUNTERS_TABLE")
    key_hash_secret_id: str = Field(alias="KEY_HASH_SECRET_ID")
    console_jwks: str = Field(default="", alias="CONSOLE_JWKS")  # JSON Web Key Set of console signers
    console_jwt_audience: str = Field(default="postline-console", alias="CONSOLE_JWT_AUDIENCE")
    console_jwt_issuer: str = Field(default="", alias="CONSOLE_JWT_ISSUER")
    # Sending (empty in a stack without the pipeline, e.g. the adapter tests' tables).
    messages_table: str = Field(default="", alias="MESSAGES_TABLE")
    events_table: str = Field(default="", alias="EVENTS_TABLE")
    suppressions_table: str = Field(default="", alias="SUPPRESSIONS_TABLE")
    idempotency_table: str = Field(default="", alias="IDEMPOTENCY_TABLE")
    content_bucket: str = Field(default="", alias="CONTENT_BUCKET")
    content_key_id: str = Field(default="", alias="CONTENT_KEY_ID")
    send_queue_url: str = Field(default="", alias="SEND_QUEUE_URL")
    send_queue_arn: str = Field(default="", alias="SEND_QUEUE_ARN")
    scheduler_role_arn: str = Field(default="", alias="SCHEDULER_ROLE_ARN")
    queue_max_delay_seconds: int = Field(default=900, ge=0, le=900, alias="QUEUE_MAX_DELAY_SECONDS")
    tracking_secret_id: str = Field(default="", alias="TRACKING_SECRET_ID")
    public_base_url: str = Field(default="", alias="PUBLIC_BASE_URL")
    outbound_transport: Literal["ses", "smtp"] = Field(default="ses", alias="OUTBOUND_TRANSPORT")
    ses_configuration_set: str = Field(default="", alias="SES_CONFIGURATION_SET")
    smtp_relay: str = Field(default="", alias="SMTP_RELAY")
    smtp_helo_name: str = Field(default="localhost", alias="SMTP_HELO_NAME")
    dns_resolver: str = Field(default="", alias="DNS_RESOLVER")
    webhook_deliveries_table: str = Field(default="", alias="WEBHOOK_DELIVERIES_TABLE")
    webhook_retry_state_machine_arn: str = Field(default="", alias="WEBHOOK_RETRY_STATE_MACHINE_ARN")
    webhook_ca_bundle: str = Field(default="", alias="WEBHOOK_CA_BUNDLE")  # extra CAs receivers may use
    notifications_from: str = Field(default="Postline <notifications@postline.invalid>", alias="NOTIFICATIONS_FROM")
    smtp_mx_port: int = Field(default=25, ge=1, le=65535, alias="SMTP_MX_PORT")
    # Webhooks to http:// and to private, loopback or link-local addresses: the embedded runtime only.
    allow_private_webhook_urls: bool = Field(default=False, alias="ALLOW_PRIVATE_WEBHOOK_URLS")
    # Requests a minute from one source address without an account (401s, public routes).
    ip_rate_limit_per_minute: int = Field(default=DEFAULT_IP_RATE_LIMIT, ge=1, alias="IP_RATE_LIMIT_PER_MINUTE")
    # GET /v3/events: past this, counting or filling a page answers 503 query_timeout.
    events_query_budget_ms: int = Field(default=5000, ge=1, alias="EVENTS_QUERY_BUDGET_MS")
    # Event exports: jobs, their CSV files and the queue the worker reads.
    jobs_table: str = Field(default="", alias="JOBS_TABLE")
    exports_bucket: str = Field(default="", alias="EXPORTS_BUCKET")
    export_queue_url: str = Field(default="", alias="EXPORT_QUEUE_URL")
    # Webhook resends: jobs (in the jobs table) and the queue their worker reads.
    resend_queue_url: str = Field(default="", alias="RESEND_QUEUE_URL")

    @classmethod
    def from_env(cls) -> Settings:
        return cls.model_validate(dict(os.environ))
