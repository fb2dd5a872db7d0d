"""The route table: one row per /v3 route, each deployed as its own Lambda.

template.yaml's function resources and infra/openapi.json are generated from this table
(`make generate`, checked by `make drift`). It ships in the layer because the request
plumbing reads a route's access rule and live-only flag from it at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

from postline.keys.access import Access

# Permission sets a route can ask for; infra/generate.py turns each into IAM statements.
AUTH = "auth"  # authenticate a key: read keys/accounts, touch last_used_at, count the rate window
SOURCE_RATE = "source-rate"  # count the source address's rate window (public routes; AUTH includes it)
RESOURCES_READ = "resources:read"
RESOURCES_WRITE = "resources:write"
COUNTERS_READ = "counters:read"
SEND = "send"  # accept mail: quotas, seal content, queue or schedule, store messages and events
MESSAGES_READ = "messages:read"
MESSAGES_WRITE = "messages:write"
TRACK = "track"  # record opens, clicks and unsubscribes
SIGNING_KEYS = "signing-keys"  # read the webhook signing keys; mint the first one
EGRESS = "egress"  # the static egress address: a setting from the template, no AWS call
WEBHOOKS_READ = "webhooks:read"  # read endpoints, decrypting their auth
WEBHOOKS_WRITE = "webhooks:write"  # write endpoints, sealing their auth under a new data key
EVENTS_READ = "events:read"  # query the events table and its indexes
METRICS_READ = "metrics:read"  # query the metrics roll-ups (counters table)
EXPORTS_WRITE = "exports:write"  # start an event export: its job and the export queue
EXPORTS_READ = "exports:read"  # read export jobs, presign their files
DELIVERIES_READ = "webhook-deliveries:read"  # query an endpoint's delivery history
RESENDS_WRITE = "webhook-resends:write"  # read deliveries, store a resend job, queue it
RESENDS_READ = "webhook-resends:read"  # read resend jobs
IP_POOLS_SES = "ip-pools:ses"  # make and delete a pool's SES dedicated IP pool and configuration set
WEBHOOK_SAMPLES = "webhook-samples"  # store a sample event's delivery and start its retry workflow
DOMAINS_READ = "domains:read"  # read sending domains, decrypting their DKIM keys
DOMAINS_WRITE = "domains:write"  # write them (DKIM keys sealed), check their DNS, notify owners
VERIFY = "verify"  # verify addresses: credits and windows, per-domain facts, activity, complaints list, DNS, SMTP, RDAP
VERIFY_BULK_WRITE = "verify-bulk:write"  # start bulk jobs: jobs table, their queue, credits (test jobs' results)
VERIFY_BULK_READ = "verify-bulk:read"  # read bulk jobs and their results
VERIFY_BULK_FILES = "verify-bulk:files"  # presign bulk jobs' result files
VERIFY_BULK_UPLOADS = "verify-bulk:uploads"  # bulk jobs' CSV files: store, presign the PUT, find it, queue it
VERIFY_PROOFS = "verify-proofs"  # read the proofs registry
SUPPRESSIONS_READ = "suppressions:read"  # query the suppressions table and its indexes
SUPPRESSIONS_WRITE = "suppressions:write"  # write entries (audit entries beside them), count the bulk window
SUPPRESSIONS_IMPORT = "suppressions:import"  # store an import's file and job, queue it
SUPPRESSIONS_EXPORT = "suppressions:export"  # store an export job (deduped by list), queue it
SUPPRESSION_JOBS_READ = "suppression-jobs:read"  # read import and export jobs, presign export files
LISTS_DELETE = "lists:delete"  # queue a deleted list's members for the list worker
LIST_SENDS_READ = "list-sends:read"  # read list send jobs (the jobs table)
LIST_SENDS_CANCEL = "list-sends:cancel"  # move list send jobs to cancelled, delete their schedules
UPLOADS = "uploads"  # uploads and their quota item, their objects (uploads/*), the tracking secret (links)
UPLOADS_READ = "uploads:read"  # read uploads, presign their GETs, sign their links
DATA_REMOVALS_WRITE = "data-removals:write"  # store removal jobs (audit beside them), hash the address, queue
DATA_REMOVALS_READ = "data-removals:read"  # read removal jobs
MESSAGES_CHECK = "messages:check"  # render a send without sending and check it: read only, and spamd
MESSAGES_CONTENT = "messages:content"  # read a message's kept copies, or open its sealed body to rebuild them


@dataclass(frozen=True)
class Route:
    name: str  # CamelCase; the function's logical id is f"{name}Function"
    method: str
    path: str  # API Gateway syntax: /v3/keys/{id}
    module: str  # functions/api/<module>.py, whose `handler` serves the route
    access: Access
    # The audit action every successful call of a management write records: published as the
    # operation's x-audit-action in the OpenAPI document, and tests/e2e/test_audit.py checks each
    # write route records exactly it.
    audit: str | None = None
    live_only: bool = False  # a test key gets 403 test_key_forbidden
    memory: int = 256
    timeout: int = 10
    policies: tuple[str, ...] = ()
    # It may run an SMTP mailbox probe: in the VPC, to ask the relay task (a Lambda cannot open port 25).
    probes_mailboxes: bool = False
    # Its use case confirms the request's admission before its first durable write, so on a warm
    # instance it may run on the key's remembered principal beside the admission (auth/speculation.py).
    speculative: bool = False

    @property
    def function_id(self) -> str:
        return f"{self.name}Function"

    @property
    def all_policies(self) -> tuple[str, ...]:
        base = (SOURCE_RATE,) if self.access is Access.PUBLIC else (AUTH,)
        return base + self.policies


R, W = RESOURCES_READ, RESOURCES_WRITE

# fmt: off
ROUTES: tuple[Route, ...] = (
    #     name         method    path                    module      access        audit / flags / permissions
    Route("WhoAmI",    "GET",    "/v3/whoami",           "auth", Access.READ),
    Route("GetUsage",  "GET",    "/v3/usage",            "usage",    Access.READ,  policies=(COUNTERS_READ,)),
    Route("ListKeys",  "GET",    "/v3/keys",             "keys",     Access.READ,  policies=(R,)),
    Route("CreateKey", "POST",   "/v3/keys",             "keys",     Access.WRITE, "key.created", True, policies=(W,)),
    Route("GetKey",    "GET",    "/v3/keys/{id}",        "keys",     Access.READ,  policies=(R,)),
    Route("UpdateKey", "PATCH",  "/v3/keys/{id}",        "keys",     Access.WRITE, "key.updated", True, policies=(W,)),
    Route("RotateKey", "POST",   "/v3/keys/{id}/rotate", "keys",     Access.WRITE, "key.rotated", True, policies=(W,)),
    Route("DeleteKey", "DELETE", "/v3/keys/{id}",        "keys",     Access.WRITE, "key.deleted", True, policies=(W,)),
    Route("ListAudit", "GET",    "/v3/audit",            "audit",    Access.READ,  policies=(R,)),
    Route("SendMessage",     "POST",   "/v3/messages",            "sending", Access.SEND, policies=(SEND,),
          speculative=True),
    Route("SendBatch",       "POST",   "/v3/messages.batch",      "sending", Access.SEND, memory=1024, timeout=29,
          policies=(SEND,)),
    Route("ListScheduled",   "GET",    "/v3/messages/scheduled",  "sending", Access.READ, policies=(MESSAGES_READ,)),
    Route("GetMessage",      "GET",    "/v3/messages/{id}",       "sending", Access.READ, policies=(MESSAGES_READ,)),
    Route("CancelMessage",   "DELETE", "/v3/messages/{id}",       "sending", Access.CANCEL_OWN_SEND,
          policies=(MESSAGES_WRITE,)),
    # Not among the writes the interface's scope table gives send_only keys (section 5.3): full_access.
    Route("CheckMessage",    "POST",   "/v3/messages/check",      "message_content", Access.WRITE,
          policies=(MESSAGES_CHECK,)),
    Route("GetMessageContent", "GET",  "/v3/messages/{id}/content", "message_content", Access.READ,
          policies=(MESSAGES_CONTENT,)),
    Route("ListTemplates",   "GET",    "/v3/templates",           "templates", Access.READ, policies=(R,)),
    Route("CreateTemplate",  "POST",   "/v3/templates",           "templates", Access.WRITE, "template.created",
          policies=(W,)),
    # A preview changes nothing, but it is a POST: as /v3/messages/check, full_access only.
    Route("RenderTemplate",  "POST",   "/v3/templates/render",    "templates", Access.WRITE, policies=(R,)),
    Route("GetTemplate",     "GET",    "/v3/templates/{id}",      "templates", Access.READ, policies=(R,)),
    Route("UpdateTemplate",  "PATCH",  "/v3/templates/{id}",      "templates", Access.WRITE, "template.updated",
          policies=(W,)),
    Route("DeleteTemplate",  "DELETE", "/v3/templates/{id}",      "templates", Access.WRITE, "template.deleted",
          policies=(W,)),
    Route("TrackOpen",       "GET",    "/v3/track/open/{token}",  "tracking", Access.PUBLIC, policies=(TRACK,)),
    Route("TrackClick",      "GET",    "/v3/track/click/{token}", "tracking", Access.PUBLIC, policies=(TRACK,)),
    Route("UnsubscribePage", "GET",    "/v3/track/unsubscribe/{token}", "tracking", Access.PUBLIC),
    Route("Unsubscribe",     "POST",   "/v3/track/unsubscribe/{token}", "tracking", Access.PUBLIC, policies=(TRACK,)),
    Route("SigningKeys",     "GET",    "/.well-known/svc/keys",   "signing_keys", Access.PUBLIC,
          policies=(SIGNING_KEYS,)),
    Route("Egress",          "GET",    "/.well-known/svc/egress", "egress", Access.PUBLIC, policies=(EGRESS,)),
    Route("ListWebhooks",    "GET",    "/v3/webhooks",            "webhooks", Access.READ, policies=(WEBHOOKS_READ,)),
    Route("CreateWebhook",   "POST",   "/v3/webhooks",            "webhooks", Access.WRITE, "webhook.created",
          policies=(WEBHOOKS_WRITE,)),
    Route("GetWebhook",      "GET",    "/v3/webhooks/{id}",       "webhooks", Access.READ, policies=(WEBHOOKS_READ,)),
    Route("UpdateWebhook",   "PUT",    "/v3/webhooks/{id}",       "webhooks", Access.WRITE, "webhook.updated",
          policies=(WEBHOOKS_WRITE,)),
    Route("DeleteWebhook",   "DELETE", "/v3/webhooks/{id}",       "webhooks", Access.WRITE, "webhook.deleted",
          policies=(WEBHOOKS_WRITE,)),
    Route("RotateWebhookSecret", "POST", "/v3/webhooks/{id}/secret/rotate", "webhooks", Access.WRITE,
          "webhook.secret_rotated", policies=(WEBHOOKS_WRITE,)),
    Route("ListEvents",      "GET",    "/v3/events",              "events",   Access.READ, memory=512,
          policies=(EVENTS_READ,)),
    Route("ExportEvents",    "POST",   "/v3/events/export",       "events",   Access.WRITE, "events.exported",
          policies=(EXPORTS_WRITE, W)),
    Route("GetEventExport",  "GET",    "/v3/events/export/{id}",  "events",   Access.READ, policies=(EXPORTS_READ,)),
    Route("MetricsSummary",    "GET",  "/v3/metrics/summary",     "metrics",  Access.READ, memory=512, timeout=29,
          policies=(METRICS_READ,)),
    # R: the timeseries and the breakdown by subaccount list the organisation's subaccounts.
    Route("MetricsTimeseries", "GET",  "/v3/metrics/timeseries",  "metrics",  Access.READ, memory=512, timeout=29,
          policies=(METRICS_READ, R)),
    Route("MetricsBreakdown",  "GET",  "/v3/metrics/breakdown",   "metrics",  Access.READ, memory=512, timeout=29,
          policies=(METRICS_READ, R)),
    Route("ListWebhookDeliveries", "GET", "/v3/webhooks/{id}/deliveries", "webhook_delivery", Access.READ,
          policies=(WEBHOOKS_READ, DELIVERIES_READ)),
    Route("ResendWebhookDeliveries", "POST", "/v3/webhooks/deliveries/resend", "webhook_delivery", Access.WRITE,
          "webhook.deliveries_resent", policies=(RESENDS_WRITE, WEBHOOKS_READ, W)),
    Route("GetWebhookResend", "GET", "/v3/webhooks/deliveries/resend/{id}", "webhook_delivery", Access.READ,
          policies=(RESENDS_READ,)),
    Route("SendWebhookSample", "POST", "/v3/webhooks/{id}/test", "webhook_delivery", Access.WRITE,
          policies=(WEBHOOKS_READ, WEBHOOK_SAMPLES)),
    Route("ListDomains",     "GET",    "/v3/domains",             "domains",  Access.READ, live_only=True,
          policies=(DOMAINS_READ, COUNTERS_READ)),
    Route("CreateDomain",    "POST",   "/v3/domains",             "domains",  Access.WRITE, "domain.created", True,
          policies=(DOMAINS_WRITE,)),
    Route("GetDomain",       "GET",    "/v3/domains/{id}",        "domains",  Access.READ, live_only=True,
          policies=(DOMAINS_READ, COUNTERS_READ)),
    Route("UpdateDomain",    "PATCH",  "/v3/domains/{id}",        "domains",  Access.WRITE, "domain.updated", True,
          policies=(DOMAINS_WRITE, COUNTERS_READ)),
    Route("DeleteDomain",    "DELETE", "/v3/domains/{id}",        "domains",  Access.WRITE, "domain.deleted", True,
          policies=(DOMAINS_WRITE,)),
    Route("VerifyDomain",    "POST",   "/v3/domains/{id}/verify", "domains",  Access.WRITE, "domain.checked", True,
          policies=(DOMAINS_WRITE, COUNTERS_READ)),
    Route("RotateDomainDkim", "POST",  "/v3/domains/{id}/dkim/rotate", "domains", Access.WRITE, "domain.dkim_rotated",
          True, policies=(DOMAINS_WRITE, COUNTERS_READ)),
    # Verifications are writes (they spend credits): full_access only; not audited (recorded as usage).
    Route("ValidateAddress", "POST",   "/v3/validate",            "verification", Access.WRITE, timeout=29,
          policies=(VERIFY,), probes_mailboxes=True),
    Route("StartBulkValidation", "POST", "/v3/validate/bulk",      "verification", Access.WRITE, memory=1024,
          timeout=29, policies=(VERIFY_BULK_WRITE, VERIFY_BULK_UPLOADS)),
    Route("EvaluateList",    "POST",   "/v3/validate/evaluate",   "verification", Access.WRITE, memory=1024,
          timeout=29),
    Route("GetBulkValidation", "GET",  "/v3/validate/bulk/{id}",  "verification", Access.READ,
          policies=(VERIFY_BULK_READ, VERIFY_BULK_UPLOADS)),
    Route("GetBulkValidationResults", "GET", "/v3/validate/bulk/{id}/results", "verification", Access.READ,
          policies=(VERIFY_BULK_READ,)),
    Route("GetBulkValidationFile", "GET", "/v3/validate/bulk/{id}/file", "verification", Access.READ,
          policies=(VERIFY_BULK_READ, VERIFY_BULK_FILES)),
    Route("DeleteBulkValidation", "DELETE", "/v3/validate/bulk/{id}", "verification", Access.WRITE,
          policies=(VERIFY_BULK_WRITE,)),
    Route("VerifyProof",     "POST",   "/v3/validate/proofs/verify", "verification", Access.WRITE, memory=512,
          timeout=29, policies=(VERIFY_PROOFS,)),
    Route("ListSuppressions", "GET",   "/v3/suppressions",        "suppressions", Access.READ,
          policies=(SUPPRESSIONS_READ,)),
    Route("CreateSuppression", "POST", "/v3/suppressions",        "suppressions", Access.WRITE, "suppression.created",
          policies=(SUPPRESSIONS_WRITE, W)),
    Route("BulkAddSuppressions", "POST", "/v3/suppressions/bulk", "suppressions", Access.WRITE,
          "suppressions.bulk_added", memory=1024, timeout=29, policies=(SUPPRESSIONS_WRITE, W)),
    Route("BulkDeleteSuppressions", "DELETE", "/v3/suppressions/bulk", "suppressions", Access.WRITE,
          "suppressions.bulk_deleted", memory=1024, timeout=29, policies=(SUPPRESSIONS_WRITE, W)),
    Route("ImportSuppressions", "POST", "/v3/suppressions/import", "suppressions", Access.WRITE,
          "suppressions.imported", memory=512, timeout=29, policies=(SUPPRESSIONS_WRITE, SUPPRESSIONS_IMPORT, W)),
    Route("GetSuppressionImport", "GET", "/v3/suppressions/imports/{id}", "suppressions", Access.READ,
          policies=(SUPPRESSION_JOBS_READ,)),
    Route("ExportSuppressions", "POST", "/v3/suppressions/export", "suppressions", Access.WRITE,
          "suppressions.exported", policies=(SUPPRESSIONS_EXPORT, W)),
    Route("GetSuppressionExport", "GET", "/v3/suppressions/exports/{id}", "suppressions", Access.READ,
          policies=(SUPPRESSION_JOBS_READ,)),
    Route("GetSuppression",  "GET",    "/v3/suppressions/{id}",   "suppressions", Access.READ,
          policies=(SUPPRESSIONS_READ,)),
    Route("DeleteSuppression", "DELETE", "/v3/suppressions/{id}", "suppressions", Access.WRITE, "suppression.deleted",
          policies=(SUPPRESSIONS_WRITE, W)),
    Route("DeleteSuppressionByAddress", "DELETE", "/v3/suppressions/{type}/{email}", "suppressions", Access.WRITE,
          "suppression.deleted", policies=(SUPPRESSIONS_WRITE, W)),
    Route("ListLists",       "GET",    "/v3/lists",               "lists",    Access.READ, policies=(R,)),
    Route("CreateList",      "POST",   "/v3/lists",               "lists",    Access.WRITE, "list.created",
          policies=(W,)),
    Route("GetList",         "GET",    "/v3/lists/{id}",          "lists",    Access.READ, policies=(R,)),
    Route("UpdateList",      "PATCH",  "/v3/lists/{id}",          "lists",    Access.WRITE, "list.updated",
          policies=(W,)),
    Route("DeleteList",      "DELETE", "/v3/lists/{id}",          "lists",    Access.WRITE, "list.deleted",
          policies=(W, LISTS_DELETE)),
    Route("ListListMembers", "GET",    "/v3/lists/{id}/members",  "lists",    Access.READ, policies=(R,)),
    Route("AddListMember",   "POST",   "/v3/lists/{id}/members",  "lists",    Access.WRITE, "list.member_added",
          policies=(W,)),
    Route("BulkUpsertListMembers", "POST", "/v3/lists/{id}/members/bulk", "lists", Access.WRITE,
          "list.members_upserted", memory=512, timeout=29, policies=(W,)),
    Route("GetListMember",   "GET",    "/v3/lists/{id}/members/{address}", "lists", Access.READ, policies=(R,)),
    Route("UpdateListMember", "PATCH", "/v3/lists/{id}/members/{address}", "lists", Access.WRITE,
          "list.member_updated", policies=(W,)),
    Route("DeleteListMember", "DELETE", "/v3/lists/{id}/members/{address}", "lists", Access.WRITE,
          "list.member_deleted", policies=(W,)),
    Route("GetListSend",     "GET",    "/v3/lists/{id}/sends/{send_id}", "lists", Access.READ,
          policies=(LIST_SENDS_READ,)),
    # Like DELETE /v3/messages/{id}: a send_only key may cancel its own; audited all the same.
    Route("CancelListSend",  "DELETE", "/v3/lists/{id}/sends/{send_id}", "lists", Access.CANCEL_OWN_SEND,
          "list.send_cancelled", policies=(LIST_SENDS_CANCEL, W)),
    Route("ListSubaccounts", "GET",    "/v3/subaccounts",         "subaccounts", Access.READ, policies=(R,)),
    Route("CreateSubaccount", "POST",  "/v3/subaccounts",         "subaccounts", Access.WRITE, "subaccount.created",
          True, policies=(W,)),
    Route("GetSubaccount",   "GET",    "/v3/subaccounts/{id}",    "subaccounts", Access.READ, policies=(R,)),
    Route("UpdateSubaccount", "PATCH", "/v3/subaccounts/{id}",    "subaccounts", Access.WRITE, "subaccount.updated",
          True, policies=(W,)),
    Route("SuspendSubaccount", "POST", "/v3/subaccounts/{id}/suspend", "subaccounts", Access.WRITE,
          "subaccount.suspended", True, policies=(W,)),
    Route("ReactivateSubaccount", "POST", "/v3/subaccounts/{id}/reactivate", "subaccounts", Access.WRITE,
          "subaccount.reactivated", True, policies=(W,)),
    Route("DeleteSubaccount", "DELETE", "/v3/subaccounts/{id}",   "subaccounts", Access.WRITE, "subaccount.deleted",
          True, policies=(W,)),
    Route("ListUploads",     "GET",    "/v3/uploads",             "uploads",  Access.READ, policies=(UPLOADS_READ,)),
    Route("CreateUpload",    "POST",   "/v3/uploads",             "uploads",  Access.WRITE, "upload.created",
          memory=512, timeout=29, policies=(UPLOADS,)),
    Route("GetUpload",       "GET",    "/v3/uploads/{id}",        "uploads",  Access.READ, policies=(UPLOADS_READ,)),
    Route("UpdateUpload",    "PATCH",  "/v3/uploads/{id}",        "uploads",  Access.WRITE, "upload.updated",
          policies=(UPLOADS,)),
    Route("DeleteUpload",    "DELETE", "/v3/uploads/{id}",        "uploads",  Access.WRITE, "upload.deleted",
          policies=(UPLOADS,)),
    Route("CompleteUpload",  "POST",   "/v3/uploads/{id}/complete", "uploads", Access.WRITE, "upload.completed",
          policies=(UPLOADS,)),
    Route("GetUploadDownloadLink", "GET", "/v3/uploads/{id}/download-link", "uploads", Access.READ,
          policies=(UPLOADS_READ,)),
    # The hosted link (no key), on the branded tracking host: GET counts a person's download, HEAD is a scanner's.
    Route("DownloadUpload",  "GET",    "/v3/track/download/{token}", "uploads", Access.PUBLIC, policies=(UPLOADS,)),
    Route("ProbeUpload",     "HEAD",   "/v3/track/download/{token}", "uploads", Access.PUBLIC, policies=(UPLOADS,)),
    # Erasure: live keys only (a test key cannot erase what live sends hold).
    Route("CreateDataRemoval", "POST", "/v3/data-removals",       "data_removals", Access.WRITE,
          "data_removal.requested", True, policies=(DATA_REMOVALS_WRITE, W)),
    Route("GetDataRemoval",  "GET",    "/v3/data-removals/{id}",  "data_removals", Access.READ,
          policies=(DATA_REMOVALS_READ,)),
    Route("ListIpPools",     "GET",    "/v3/ip-pools",            "ip_pools", Access.READ,
          policies=(R, COUNTERS_READ)),
    Route("CreateIpPool",    "POST",   "/v3/ip-pools",            "ip_pools", Access.WRITE, "ip_pool.created",
          True, policies=(W, IP_POOLS_SES)),
    Route("GetIpPool",       "GET",    "/v3/ip-pools/{id}",       "ip_pools", Access.READ,
          policies=(R, COUNTERS_READ)),
    Route("UpdateIpPool",    "PATCH",  "/v3/ip-pools/{id}",       "ip_pools", Access.WRITE, "ip_pool.updated",
          True, policies=(W, COUNTERS_READ)),
    Route("DeleteIpPool",    "DELETE", "/v3/ip-pools/{id}",       "ip_pools", Access.WRITE, "ip_pool.deleted",
          True, policies=(W, IP_POOLS_SES)),
    Route("AssignIp",        "POST",   "/v3/ip-pools/{id}/ips",   "ip_pools", Access.WRITE, "ip_pool.ip_assigned",
          True, policies=(W,)),
    Route("ListIps",         "GET",    "/v3/ips",                 "ip_pools", Access.READ, policies=(R,)),
)
# fmt: on


def find_route(method: str, resource: str) -> Route | None:
    """Look a route up by method and API Gateway resource path (event['resource'])."""
    method = method.upper()
    for route in ROUTES:
        if route.method == method and route.path == resource:
            return route
    return None
