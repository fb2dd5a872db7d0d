"""The functions' environment, as settings groups: the variables one component reads, all required.

A function declares the groups it reads (`postline/deployment.py`: an API function those of its
routes' permissions, a worker its own row). `make generate` writes exactly their variables into its
Environment in template.yaml, and the function loads them as it is imported (`wiring.require`),
so a missing or malformed variable fails the cold start with its name, not a request later.
A variable may belong to several groups (SMTP_RELAY: the transport and the owner notices); it
has one value per stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Self

from pydantic import ConfigDict, Field, ValidationError

from postline.shared.base import Model


class SettingsError(RuntimeError):
    """A function's environment lacks a variable it declares, or holds one it cannot read."""


class SettingsGroup(Model):
    # A function reads a few of these groups; like every Model, each one's validator is built when
    # first used, not at import, which every cold start would pay for (bench i measures imports).
    model_config = ConfigDict(frozen=True, extra="ignore")

    @classmethod
    def variables(cls) -> tuple[str, ...]:
        return tuple(str(field.alias) for field in cls.model_fields.values())

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Self:
        missing = [name for name in cls.variables() if name not in environ]
        if missing:
            raise SettingsError(f"{cls.__name__} settings: {', '.join(missing)} missing from the environment")
        try:
            return cls.model_validate({name: environ[name] for name in cls.variables()})
        except ValidationError as exc:
            problems = "; ".join(f"{error['loc'][0]}: {error['msg']}" for error in exc.errors())
            raise SettingsError(f"{cls.__name__} settings: {problems}") from None


# -- tables -------------------------------------------------------------------------------------


class Resources(SettingsGroup):
    table: str = Field(alias="RESOURCES_TABLE", min_length=1)  # accounts, keys, templates, webhooks, ...


class Counters(SettingsGroup):
    table: str = Field(alias="COUNTERS_TABLE", min_length=1)  # rate windows, quotas, usage


class Messages(SettingsGroup):
    table: str = Field(alias="MESSAGES_TABLE", min_length=1)


class Events(SettingsGroup):
    table: str = Field(alias="EVENTS_TABLE", min_length=1)


class Suppressions(SettingsGroup):
    table: str = Field(alias="SUPPRESSIONS_TABLE", min_length=1)


class Idempotency(SettingsGroup):
    table: str = Field(alias="IDEMPOTENCY_TABLE", min_length=1)


class WebhookDeliveries(SettingsGroup):
    table: str = Field(alias="WEBHOOK_DELIVERIES_TABLE", min_length=1)


class Jobs(SettingsGroup):
    table: str = Field(alias="JOBS_TABLE", min_length=1)  # exports and resends


# -- secrets and keys ---------------------------------------------------------------------------


class KeyPepper(SettingsGroup):
    secret_id: str = Field(alias="KEY_HASH_SECRET_ID", min_length=1)


class Console(SettingsGroup):
    jwks: str = Field(alias="CONSOLE_JWKS")  # JSON Web Key Set of console signers; empty: no console tokens
    jwks_url: str = Field(default="", alias="CONSOLE_JWKS_URL")  # or where to fetch it (a Cognito user pool)
    audience: str = Field(alias="CONSOLE_JWT_AUDIENCE")  # comma-separated when several (a pool's app clients)
    issuer: str = Field(alias="CONSOLE_JWT_ISSUER")  # empty: any issuer


class ContentKey(SettingsGroup):
    key_id: str = Field(alias="CONTENT_KEY_ID", min_length=1)  # wraps content, DKIM keys, webhook auth


class TrackingSecret(SettingsGroup):
    secret_id: str = Field(alias="TRACKING_SECRET_ID", min_length=1)


# -- sending ------------------------------------------------------------------------------------


class ContentBucket(SettingsGroup):
    bucket: str = Field(alias="CONTENT_BUCKET", min_length=1)


class SendQueue(SettingsGroup):
    url: str = Field(alias="SEND_QUEUE_URL", min_length=1)
    arn: str = Field(alias="SEND_QUEUE_ARN", min_length=1)
    scheduler_role_arn: str = Field(alias="SCHEDULER_ROLE_ARN", min_length=1)
    # Waits up to this are SQS delays; longer ones EventBridge Scheduler one-time schedules.
    max_delay_seconds: int = Field(alias="QUEUE_MAX_DELAY_SECONDS", ge=0, le=900)


class RelayQueue(SettingsGroup):
    # Hand-overs from the dispatcher to the SMTP relay task (postline/relay): a Lambda cannot open
    # port 25, so live SMTP deliveries are made there. Also the queue the relay task long-polls.
    url: str = Field(alias="RELAY_QUEUE_URL", min_length=1)
    arn: str = Field(alias="RELAY_QUEUE_ARN", min_length=1)


class RelaySources(SettingsGroup):
    """The relay host's addresses (template parameter RelayAddressCount): `<Elastic IP>=<private
    address>` pairs, comma-separated. A pool's address is its Elastic IP; the relay binds the private
    address carrying it (the internet gateway rewrites the source). Empty (the Fargate relay, the
    embedded runtime): an address is bound as it is."""

    addresses: str = Field(alias="RELAY_SOURCE_ADDRESSES")

    def bindings(self) -> dict[str, str]:
        pairs = (entry.split("=", 1) for entry in self.addresses.split(",") if entry.strip())
        try:
            return {public.strip(): private.strip() for public, private in pairs}
        except ValueError:
            raise SettingsError(f"RELAY_SOURCE_ADDRESSES: {self.addresses!r} is not public=private pairs") from None


class PublicUrl(SettingsGroup):
    base_url: str = Field(alias="PUBLIC_BASE_URL")  # tracking and unsubscribe links; empty: none


class Outbound(SettingsGroup):
    transport: Literal["ses", "smtp"] = Field(alias="OUTBOUND_TRANSPORT")
    ses_configuration_set: str = Field(alias="SES_CONFIGURATION_SET")
    smtp_relay: str = Field(alias="SMTP_RELAY")  # host:port of a smart host; empty: each domain's MX
    smtp_helo_name: str = Field(alias="SMTP_HELO_NAME", min_length=1)
    smtp_mx_port: int = Field(alias="SMTP_MX_PORT", ge=1, le=65535)


class PoolProvisioning(SettingsGroup):
    """What an IP pool's create and delete need for its SES counterpart (ip_pools/ses.py)."""

    transport: Literal["ses", "smtp"] = Field(alias="OUTBOUND_TRANSPORT")
    feedback_topic_arn: str = Field(alias="FEEDBACK_TOPIC_ARN")  # where a pool's configuration set reports


class TlsReports(SettingsGroup):
    """Who signs the relay's TLS-RPT reports (RFC 8460): organization-name, and contact-info, which
    is also the From of mailed reports; its domain names the submitter."""

    organization: str = Field(alias="TLSRPT_ORGANIZATION", min_length=1)
    contact: str = Field(alias="TLSRPT_CONTACT", pattern=r"^[^@\s<>]+@[^@\s<>]+$")

    @property
    def submitter(self) -> str:
        return self.contact.rpartition("@")[2].lower()


class Egress(SettingsGroup):
    ip: str = Field(alias="EGRESS_IP")  # the NAT gateway's Elastic IP (the OutboundIp output); empty: none


class EgressPolicy(SettingsGroup):
    # The one outbound address policy (postline/egress/guard.py): connections made for customers (their
    # MX hosts, mta-sts.<domain>, https TLS-RPT rua, webhooks) go to public addresses only. "true" lets
    # them reach loopback, private and link-local addresses too, and webhooks use http://: the embedded
    # runtime and tests only (parameter AllowPrivateOutbound, default "false"; a deployed stack never sets it).
    allow_private: bool = Field(alias="ALLOW_PRIVATE_OUTBOUND")


class Dns(SettingsGroup):
    resolver: str = Field(alias="DNS_RESOLVER")  # host:port; empty: the system's resolvers


class SpamCheck(SettingsGroup):
    # spamd for the content check (content_checks/spamd.py); empty: `spamassassin: unavailable`.
    spamd: str = Field(alias="SPAMD_ADDRESS", pattern=r"^$|^[^:\s]+:\d{1,5}$")


class DomainRecords(SettingsGroup):
    # What customers' sending-domain records point at (domains/domain.py DnsSettings).
    spf_include: str = Field(alias="SPF_INCLUDE", min_length=1)  # the SPF record of our sending hosts
    bounce_mx: str = Field(alias="BOUNCE_MX_HOST", min_length=1)  # receives bounces for return paths
    tracking_host: str = Field(alias="TRACKING_HOST", min_length=1)  # branded tracking CNAMEs' target


class VerifyQueue(SettingsGroup):
    url: str = Field(alias="VERIFY_QUEUE_URL", min_length=1)  # bulk verification jobs' chunks


class VerificationChecks(SettingsGroup):
    # POST /v3/validate: where the mailbox probe runs ("direct": this process speaks SMTP to the MX,
    # the embedded runtime; "relay": the SMTP relay task, the cloud; "off") and the RDAP service.
    smtp_probe: Literal["direct", "relay", "off"] = Field(alias="VERIFY_SMTP_PROBE")
    # host:port of the relay task's probe endpoint (postline/relay/probes.py), for "relay"
    relay_probe: str = Field(alias="RELAY_PROBE_ADDRESS", pattern=r"^[^:\s]+:\d{1,5}$")
    rdap_base_url: str = Field(alias="RDAP_BASE_URL")  # https://...; empty: domain ages are not looked up
    rdap_ca_bundle: str = Field(alias="RDAP_CA_BUNDLE")  # PEM of extra CAs for the RDAP server; empty: none


# -- API ----------------------------------------------------------------------------------------


class SourceRate(SettingsGroup):
    # Requests a minute from one source address without an account (401s, public routes).
    per_minute: int = Field(alias="IP_RATE_LIMIT_PER_MINUTE", ge=1)


class EventsQuery(SettingsGroup):
    # GET /v3/events: past this, counting or filling a page answers 503 query_timeout.
    budget_ms: int = Field(alias="EVENTS_QUERY_BUDGET_MS", ge=1)


class MetricsQuery(SettingsGroup):
    # GET /v3/metrics/*: past this, reading the roll-ups answers 503 query_timeout.
    budget_ms: int = Field(alias="METRICS_QUERY_BUDGET_MS", ge=1)


class ExportFiles(SettingsGroup):
    bucket: str = Field(alias="EXPORTS_BUCKET", min_length=1)


class ExportQueue(SettingsGroup):
    url: str = Field(alias="EXPORT_QUEUE_URL", min_length=1)


class DataRemovalQueue(SettingsGroup):
    url: str = Field(alias="DATA_REMOVAL_QUEUE_URL", min_length=1)


class SuppressionJobQueue(SettingsGroup):
    url: str = Field(alias="SUPPRESSION_JOB_QUEUE_URL", min_length=1)


class ListJobQueue(SettingsGroup):
    url: str = Field(alias="LIST_JOB_QUEUE_URL", min_length=1)
    arn: str = Field(alias="LIST_JOB_QUEUE_ARN", min_length=1)  # a scheduled list send's schedule target


class ResendQueue(SettingsGroup):
    url: str = Field(alias="RESEND_QUEUE_URL", min_length=1)


# -- webhooks -----------------------------------------------------------------------------------


class WebhookTls(SettingsGroup):
    ca_bundle: str = Field(alias="WEBHOOK_CA_BUNDLE")  # PEM of extra CAs receivers may chain to; empty: none


class WebhookRetry(SettingsGroup):
    state_machine_arn: str = Field(alias="WEBHOOK_RETRY_STATE_MACHINE_ARN", min_length=1)


class Notifications(SettingsGroup):
    sender: str = Field(alias="NOTIFICATIONS_FROM", min_length=1)  # notices to account owners
    smtp_relay: str = Field(alias="SMTP_RELAY")  # through the relay when one is set, else SES


GROUPS: tuple[type[SettingsGroup], ...] = tuple(SettingsGroup.__subclasses__())
