"""Which settings groups each function reads: the one table template.yaml's environments come from.

An API function reads the groups of its routes' permissions (the same names the generator turns
into IAM statements), unioned over every route its module serves, since the module's code is
the same in each of them. A worker has its own row. `make generate` writes each function's
Environment from here; the function loads the same groups as it is imported (`wiring.require`);
the embedded runtime refuses, during the test suite, an invocation that reads a group its function
does not declare, so a row that forgets one fails a test instead of a deployed function.
"""

from __future__ import annotations

from pathlib import Path

from postline import routes as r
from postline.config import (
    Console,
    ContentBucket,
    ContentKey,
    Counters,
    DataRemovalQueue,
    Dns,
    DomainRecords,
    Egress,
    EgressPolicy,
    Events,
    EventsQuery,
    ExportFiles,
    ExportQueue,
    Idempotency,
    Jobs,
    KeyPepper,
    ListJobQueue,
    Messages,
    MetricsQuery,
    Notifications,
    Outbound,
    PoolProvisioning,
    PublicUrl,
    RelayQueue,
    RelaySources,
    ResendQueue,
    Resources,
    SendQueue,
    SettingsGroup,
    SourceRate,
    SpamCheck,
    SuppressionJobQueue,
    Suppressions,
    TlsReports,
    TrackingSecret,
    VerificationChecks,
    VerifyQueue,
    WebhookDeliveries,
    WebhookRetry,
    WebhookTls,
)

Groups = tuple[type[SettingsGroup], ...]


def _ordered_groups(groups: list[type[SettingsGroup]]) -> Groups:
    return tuple(dict.fromkeys(groups))


_AUTHENTICATE: Groups = (Resources, Counters, KeyPepper, Console, SourceRate)

POLICY_SETTINGS: dict[str, Groups] = {
    r.AUTH: _AUTHENTICATE,
    r.SOURCE_RATE: _AUTHENTICATE,  # public routes count their source address through the authenticator
    r.RESOURCES_READ: (Resources,),
    r.RESOURCES_WRITE: (Resources,),
    r.COUNTERS_READ: (Counters,),
    r.SEND: (
        Messages,
        Events,
        Idempotency,
        Suppressions,
        ContentKey,
        ContentBucket,
        SendQueue,
        EgressPolicy,  # a message's webhook_url is checked against the outbound address policy
        Jobs,  # a send to a list's address stores its job (lists/sends.py)
        ListJobQueue,  # and queues it for the list worker
    ),
    r.MESSAGES_READ: (Messages, Events),
    # A live message's copies are built again: its sealed body, the domain, the tracking links.
    r.MESSAGES_CONTENT: (Messages, Events, ContentKey, ContentBucket, Resources, TrackingSecret, PublicUrl),
    r.MESSAGES_WRITE: (Messages, Events, SendQueue, ContentKey, ContentBucket, Suppressions),
    r.TRACK: (Messages, Events, Suppressions, TrackingSecret),
    r.SIGNING_KEYS: (ContentKey,),
    r.EGRESS: (Egress,),
    r.WEBHOOKS_READ: (ContentKey,),
    r.WEBHOOKS_WRITE: (ContentKey, EgressPolicy),
    r.EVENTS_READ: (Events, EventsQuery, Counters),
    r.METRICS_READ: (Counters, MetricsQuery),
    r.EXPORTS_WRITE: (Jobs, ExportQueue, ExportFiles, Events),
    r.EXPORTS_READ: (Jobs, ExportQueue, ExportFiles, Events),
    r.DELIVERIES_READ: (WebhookDeliveries,),
    r.RESENDS_WRITE: (Jobs, ResendQueue, WebhookDeliveries),
    r.RESENDS_READ: (Jobs, ResendQueue, WebhookDeliveries),
    r.WEBHOOK_SAMPLES: (WebhookDeliveries, WebhookRetry),
    r.IP_POOLS_SES: (PoolProvisioning,),
    r.DOMAINS_READ: (ContentKey,),
    r.DOMAINS_WRITE: (ContentKey, Dns, DomainRecords, Notifications, Outbound),
    r.VERIFY: (Counters, Suppressions, Dns, Outbound, VerificationChecks, EgressPolicy),  # EgressPolicy: a direct probe
    r.VERIFY_BULK_WRITE: (Jobs, Counters, VerifyQueue, Resources, Dns, Outbound, VerificationChecks, EgressPolicy),
    r.VERIFY_BULK_READ: (Jobs, Counters, VerifyQueue, Resources),
    r.VERIFY_BULK_FILES: (ExportFiles,),
    r.VERIFY_BULK_UPLOADS: (Jobs, VerifyQueue, ExportFiles),
    r.VERIFY_PROOFS: (Resources,),
    r.SUPPRESSIONS_READ: (Suppressions, Resources),
    r.SUPPRESSIONS_WRITE: (Suppressions, Resources, Counters),
    r.SUPPRESSIONS_IMPORT: (Jobs, SuppressionJobQueue, ExportFiles),
    r.SUPPRESSIONS_EXPORT: (Jobs, SuppressionJobQueue, ExportFiles),
    r.SUPPRESSION_JOBS_READ: (Jobs, SuppressionJobQueue, ExportFiles),
    r.LISTS_DELETE: (ListJobQueue,),
    r.LIST_SENDS_READ: (Jobs,),
    r.LIST_SENDS_CANCEL: (Jobs, ListJobQueue, SendQueue),  # SendQueue: the delayed queue's scheduler settings
    r.UPLOADS: (Resources, ExportFiles, TrackingSecret),
    r.UPLOADS_READ: (Resources, ExportFiles, TrackingSecret),
    r.DATA_REMOVALS_WRITE: (Jobs, DataRemovalQueue),
    r.DATA_REMOVALS_READ: (Jobs,),
}

# The check renders a send as POST /v3/messages does (its send service, whose groups it reads), reads the
# domain and its complaint rate (roll-ups: Counters), the tracking secret, and asks spamd; it stores nothing.
POLICY_SETTINGS[r.MESSAGES_CHECK] = _ordered_groups(
    [*POLICY_SETTINGS[r.SEND], Counters, TrackingSecret, PublicUrl, SpamCheck]
)

_DELIVER: Groups = (
    Resources,
    Counters,  # a recipient failed before any hand-over gives its email back to the quota
    Messages,
    Events,
    Suppressions,
    ContentKey,
    ContentBucket,
    SendQueue,
    RelayQueue,  # the dispatcher hands live SMTP deliveries over; the relay task takes them
    Outbound,
    Dns,
    EgressPolicy,  # the outbound address policy: MX hosts, mta-sts.<domain>, https rua
    PublicUrl,
    TrackingSecret,
    SpamCheck,  # test-mode copies are checked (content_checks)
)
_WEBHOOKS: Groups = (Resources, ContentKey, WebhookDeliveries, EgressPolicy, WebhookTls, Notifications)

# functions/workers/<module>.py -> the groups it reads.
WORKER_SETTINGS: dict[str, Groups] = {
    "dispatcher": _DELIVER,
    "send_outbox": (SendQueue,),  # the messages table's stream: jobs of messages stored to go out now
    "feedback": (Resources, Messages, Events, Suppressions),
    "exporter": (Resources, Events, Jobs, ExportQueue, ExportFiles),
    "webhook_fanout": (*_WEBHOOKS, WebhookRetry),  # only the fan-out starts retry workflows
    # Reputation (metrics/reputation_service.py): the account's pools, audit entries, owner notices;
    # the event shards it raises (events/autoshard.py).
    "metrics_rollup": (Counters, Resources, Notifications, Events),
    "metrics_packing": (Counters,),
    "webhook_attempt": _WEBHOOKS,
    "webhook_resend": (*_WEBHOOKS, Jobs, ResendQueue),
    "signing_key_rotation": (Resources, ContentKey),
    "console_claims": (),  # the pool and the app client come in the trigger's event
    "domain_checks": (Resources, ContentKey, Dns, DomainRecords, Notifications, Outbound),
    "retention": (Resources, Counters, Events, Messages, WebhookDeliveries, ContentBucket),
    "recipient_activity": (Counters,),
    # A completed job's effects: suppress (the suppressions table) and webhook_url (a delivery).
    "bulk_verification": tuple(
        dict.fromkeys(
            [
                *(Jobs, Counters, VerifyQueue, Dns, Outbound, VerificationChecks, Suppressions),
                *_WEBHOOKS,
                WebhookRetry,
                ExportFiles,  # the signed result file
            ]
        )
    ),
    "suppression_jobs": (Resources, Counters, Suppressions, Jobs, SuppressionJobQueue, ExportFiles),
    # Deleted lists' members, and list sends: each page is a batch's acceptance (POLICY_SETTINGS[SEND]).
    # KeyPepper: a list send's suppression check reads erased addresses' keyed hashes (data_removals).
    "list_jobs": tuple(dict.fromkeys([Resources, Counters, KeyPepper, *POLICY_SETTINGS[r.SEND]])),
    "uploads_sweep": (Resources, ExportFiles, TrackingSecret),  # settles, releases and expires uploads
    # Deleted subaccounts' data: keys, domains (the domain service's settings), lists, suppressions, files.
    "subaccount_purge": (Resources, ContentKey, Dns, DomainRecords, Notifications, Outbound, Suppressions, ExportFiles),
    # Erasure reaches into every table and the two buckets; it signs its receipt (ContentKey).
    "eraser": (
        Resources,
        Counters,
        Messages,
        Events,
        WebhookDeliveries,
        Jobs,
        Suppressions,
        KeyPepper,
        ContentKey,
        ContentBucket,
        ExportFiles,
        DataRemovalQueue,
        Idempotency,
    ),
}

# The SMTP submission task (postline/smtp, not a Lambda): it authenticates as the API does and
# sends through POST /v3/messages' send service.
SMTP_SETTINGS: Groups = tuple(dict.fromkeys([*_AUTHENTICATE, *POLICY_SETTINGS[r.SEND]]))

# The SMTP relay task (postline/relay, not a Lambda): the dispatcher's work for the jobs handed over,
# and the daily TLS-RPT reports (postline/tlsrpt), which it sends itself (mailto: over its SMTP).
# RelaySources: the private address carrying each pool address (the relay host's Elastic IPs).
RELAY_SETTINGS: Groups = (*_DELIVER, TlsReports, Egress, RelaySources)  # Egress: the reports' sending-mta-ip

# The operator CLI (postline.cli) against a stack, and what some of its commands read besides.
CLI_SETTINGS: Groups = (Resources, Counters, KeyPepper)
COMMAND_SETTINGS: dict[str, Groups] = {
    "events": (Events,),
    # and Counters, which every command reads; Notifications: `metrics reputation` tells the owner of a
    # live domain or pool that crossed the danger line, as the roll-up consumer does
    "metrics": (Events, Notifications),
    "domain": (ContentKey, Dns, DomainRecords, Notifications, Outbound),
    # run: puts a report job on the relay queue, as the daily schedule does; dkim: the reports' key
    "tlsrpt": (RelayQueue, ContentKey, TlsReports, Dns),
    "verify": (Jobs, VerifyQueue),  # resumes a paused bulk job: its chunks go on the queue again
}


def _ordered(groups: list[type[SettingsGroup]]) -> Groups:
    return tuple(dict.fromkeys(groups))


def api_settings(module: str) -> Groups:
    """The groups of functions/api/<module>.py: its routes' permissions, unioned."""
    policies = [policy for route in r.ROUTES if route.module == module for policy in route.all_policies]
    if not policies:
        raise KeyError(f"functions/api/{module}.py serves no route of the route table")
    return _ordered([group for policy in policies for group in POLICY_SETTINGS[policy]])


def function_settings(module_file: str) -> Groups:
    """The groups of the function whose handler module is `module_file` (pass __file__)."""
    path = Path(module_file)
    if path.parent.name == "workers":
        return WORKER_SETTINGS[path.stem]
    return api_settings(path.stem)


def variables(groups: Groups) -> list[str]:
    """The environment variables of `groups`, each once, in the groups' order."""
    return list(dict.fromkeys(name for group in groups for name in group.variables()))
