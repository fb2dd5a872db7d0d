"""`postline`: the operator's command line. It talks to the same tables as the API.

Against a deployed stack, export the stack's outputs as the functions' environment
(RESOURCES_TABLE, COUNTERS_TABLE, KEY_HASH_SECRET_ID; EVENTS_TABLE for `events`; for `domain`
also CONTENT_KEY_ID, DNS_RESOLVER, SPF_INCLUDE, BOUNCE_MX_HOST, TRACKING_HOST, NOTIFICATIONS_FROM
and SMTP_RELAY; for `tlsrpt` RELAY_QUEUE_URL, CONTENT_KEY_ID, TLSRPT_ORGANIZATION, TLSRPT_CONTACT and
DNS_RESOLVER). On a development machine the `postline` script is devtools.cli, which finds a
running `make run` through .local/dev.json and then calls main() here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pydantic import BaseModel

from postline import wiring
from postline.accounts.domain import AccountStatus, Plan, QuotaSource, StorageAddon
from postline.config import SettingsError
from postline.deployment import CLI_SETTINGS, COMMAND_SETTINGS, Groups, variables
from postline.domains.models import domain_view
from postline.events.store import Backfilled
from postline.ip_pools.domain import PoolType
from postline.keys.access import Environment, Scope
from postline.operator.service import OperatorService
from postline.shared.errors import ApiError
from postline.wiring import auth as auth_root
from postline.wiring import domains, usage, verification
from postline.wiring import events as events_root
from postline.wiring import ip_pools as ip_pools_root
from postline.wiring import metrics as metrics_root
from postline.wiring import operator as operator_root
from postline.wiring import tlsrpt as tlsrpt_root


def _require_environment(command: str) -> None:
    groups: Groups = (*CLI_SETTINGS, *COMMAND_SETTINGS.get(command, ()))
    try:
        wiring.require(*groups)
    except SettingsError as exc:
        names = ", ".join(variables(groups))
        raise SystemExit(
            f"{exc}. Set {names} from the stack's outputs (and AWS_ENDPOINT_URL for an emulator)."
        ) from None


def _print(value: BaseModel | dict[str, Any]) -> None:
    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    print(json.dumps(data, indent=2))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="postline", description="Postline operator commands.")
    commands = parser.add_subparsers(dest="command", required=True)

    account = commands.add_parser("account", help="create and manage accounts").add_subparsers(
        dest="action", required=True
    )
    create = account.add_parser("create", help="create an account")
    create.add_argument("--name", required=True)
    create.add_argument("--plan", type=Plan, choices=list(Plan), default=Plan.FREE)
    create.add_argument("--status", type=AccountStatus, choices=list(AccountStatus), default=AccountStatus.ACTIVE)
    create.add_argument("--owner-email")
    account.add_parser("show", help="show an account").add_argument("account_id")
    for verb, new_status, help_text in (
        ("suspend", AccountStatus.SUSPENDED, "suspend: every API request answers 403 account_suspended"),
        ("activate", AccountStatus.ACTIVE, "make the account active again"),
    ):
        shortcut = account.add_parser(verb, help=help_text)
        shortcut.add_argument("account_id")
        shortcut.set_defaults(status=new_status)
    status = account.add_parser("set-status", help="set any account status")
    status.add_argument("account_id")
    status.add_argument("status", type=AccountStatus, choices=list(AccountStatus))
    plan = account.add_parser("set-plan", help="change the plan")
    plan.add_argument("account_id")
    plan.add_argument("plan", type=Plan, choices=list(Plan))
    rate = account.add_parser("set-rate-limit", help="requests per minute, or 'default' for the plan's")
    rate.add_argument("account_id")
    rate.add_argument("per_minute")
    grant = account.add_parser(
        "grant-credits", help="add pay-as-you-go credits (emails past the plan's allowance); sets payg_credits"
    )
    grant.add_argument("account_id")
    grant.add_argument("credits", type=int)
    source = account.add_parser(
        "set-quota-source", help="own_plan, or shared_pool (a subaccount: its organisation's pool); see grant-credits"
    )
    source.add_argument("account_id")
    source.add_argument("source", choices=[QuotaSource.OWN_PLAN.value, QuotaSource.SHARED_POOL.value])
    storage = account.add_parser("set-storage-addon", help="hosted uploads' storage: none (100 MB), 10gb, 100gb")
    storage.add_argument("account_id")
    storage.add_argument("addon", type=StorageAddon, choices=list(StorageAddon))
    verify = account.add_parser(
        "set-verify-before-send", help="verify each recipient before sending, for keys whose own setting is null"
    )
    verify.add_argument("account_id")
    verify.add_argument("setting", choices=["on", "off"])

    key = commands.add_parser("key", help="API keys").add_subparsers(dest="action", required=True)
    key_create = key.add_parser("create", help="create a key; prints its secret once")
    key_create.add_argument("account_id")
    key_create.add_argument("--name", default="operator")
    key_create.add_argument("--env", type=Environment, choices=list(Environment), default=Environment.LIVE)
    key_create.add_argument("--scope", type=Scope, choices=list(Scope), default=Scope.FULL_ACCESS)

    sandbox = commands.add_parser(
        "sandbox", help="the sandbox (live sends reach only authorized recipients) and routing to the simulator"
    ).add_subparsers(dest="action", required=True)
    for verb, help_text in (
        ("on", "put the account in the sandbox"),
        ("off", "take the account out of the sandbox"),
        ("list", "show whether the account is in the sandbox and whom it may send to"),
    ):
        sandbox.add_parser(verb, help=help_text).add_argument("account_id")
    for verb, help_text in (("add", "authorize recipients"), ("remove", "withdraw recipients")):
        change = sandbox.add_parser(verb, help=help_text)
        change.add_argument("account_id")
        change.add_argument("addresses", nargs="+", metavar="address")
    route = sandbox.add_parser("route", help="simulate the account's live sends (data.test and data.routed), or stop")
    route.add_argument("account_id")
    route.add_argument("setting", choices=["on", "off"])
    route.add_argument("--key", dest="key_id", help="only this key's live sends")

    sending = commands.add_parser("sending", help="hold or release live sending (503 sending_paused)")
    sending.add_argument("action", choices=["pause", "resume"])
    target = sending.add_mutually_exclusive_group(required=True)
    target.add_argument("--account", dest="account_id", help="one account")
    target.add_argument("--all", action="store_true", help="the whole platform")

    domain = commands.add_parser("domain", help="sending domains").add_subparsers(dest="action", required=True)
    domain.add_parser("list", help="an account's domains with their records").add_argument("account_id")
    for verb, help_text in (
        ("records", "the DNS records a domain asks for, and what the last check found"),
        ("recheck", "check a domain's DNS records now"),
    ):
        one = domain.add_parser(verb, help=help_text)
        one.add_argument("account_id")
        one.add_argument("domain_id")
    share = domain.add_parser("share", help="set a domain's sharing fields")
    share.add_argument("account_id")
    share.add_argument("domain_id")
    share.add_argument("--with-company", choices=["on", "off"])
    share.add_argument(
        "--external-accounts", help="comma-separated account ids granted sending from it ('' revokes every grant)"
    )
    share.add_argument("--owner-workspace", help="the owning workspace's name ('' clears it)")

    events = commands.add_parser("events", help="events table maintenance").add_subparsers(dest="action", required=True)
    backfill = events.add_parser(
        "backfill-index-keys",
        help="give events stored before the recipient/type indexes their keys, and before the tag items "
        "their tag items (safe to rerun)",
    )
    backfill.add_argument("--segments", type=int, default=8, help="parallel scan segments (default 8)")
    shards = events.add_parser(
        "set-shards",
        help="an account's event shards (1-64; from the first whole minute 2 minutes ahead): give a count, "
        "or --rate (messages a second) for the count it needs",
    )
    shards.add_argument("account_id")
    shards.add_argument("count", type=int, nargs="?")
    shards.add_argument("--rate", type=float, help="messages a second the account must reach (sets the count)")

    tlsrpt = commands.add_parser("tlsrpt", help="TLS-RPT reports (RFC 8460)").add_subparsers(
        dest="action", required=True
    )
    tls_run = tlsrpt.add_parser(
        "run",
        help="put a report job on the relay queue, as the daily schedule does: a relay task sends each "
        "domain's report for the day once (safe to rerun)",
    )
    tls_run.add_argument(
        "--day", type=date.fromisoformat, help="the UTC day to report, yyyy-mm-dd (default: yesterday and retries)"
    )
    tls_dkim = tlsrpt.add_parser(
        "dkim", help="the DKIM key that signs mailed reports (RFC 8460 section 3), for the reporting domain"
    )
    tls_dkim.add_argument(
        "step",
        choices=["show", "rotate", "promote"],
        help="show: the TXT records to publish (makes the first key); rotate: stage a next key to publish "
        "beside the current one; promote: the staged key signs from now on (once DNS serves it)",
    )

    retention = commands.add_parser("retention", help="history retention").add_subparsers(dest="action", required=True)
    retention.add_parser(
        "register-accounts",
        help="list every existing account among those the daily retention pass walks (once, for stacks "
        "deployed before that list; safe to rerun)",
    )

    bulk_jobs = commands.add_parser("verify", help="bulk verification jobs").add_subparsers(
        dest="action", required=True
    )
    resume = bulk_jobs.add_parser(
        "resume", help="resume a paused job now (once its account has credits), not at its next 15-minute check"
    )
    resume.add_argument("account_id")
    resume.add_argument("job_id")

    metrics = commands.add_parser("metrics", help="metrics roll-ups").add_subparsers(dest="action", required=True)
    rebuild = metrics.add_parser(
        "backfill",
        help="rebuild an account's roll-ups of closed UTC days from its stored events (safe to rerun)",
    )
    rebuild.add_argument("account_id")
    rebuild.add_argument("--since", type=date.fromisoformat, required=True, help="first UTC day, yyyy-mm-dd")
    rebuild.add_argument("--until", type=date.fromisoformat, required=True, help="last UTC day, yyyy-mm-dd")
    pack = metrics.add_parser(
        "pack",
        help="pack an account's closed UTC days of roll-ups now, as the daily pass does (safe to rerun)",
    )
    pack.add_argument("account_id")
    reputation_now = metrics.add_parser(
        "reputation",
        help="score an account's domains, IP pools and addresses now, as the roll-ups do at most every 5 minutes",
    )
    reputation_now.add_argument("account_id")
    reputation_now.add_argument("--mode", choices=["live", "test"], default="live", help="which mail (default: live)")
    console = commands.add_parser("console", help="the cloud console's users").add_subparsers(
        dest="action", required=True
    )
    invite = console.add_parser("invite", help="invite a person into an account; Cognito emails a temporary password")
    invite.add_argument("account_id")
    invite.add_argument("email")
    invite.add_argument("--scope", type=Scope, default=Scope.FULL_ACCESS, choices=list(Scope))
    invite.add_argument(
        "--pool-id",
        default=os.environ.get("CONSOLE_USER_POOL_ID", ""),
        help="the stack's ConsoleUserPoolId output (default: $CONSOLE_USER_POOL_ID)",
    )
    _ip_parsers(commands)
    return parser


def _ip_parsers(commands: Any) -> None:
    """`postline ip-pool ...` and `postline ip ...`: platform pools, addresses, staff-managed fields."""
    pool = commands.add_parser("ip-pool", help="IP pools").add_subparsers(dest="action", required=True)
    pool.add_parser("list", help="the platform's pools, or an account's").add_argument("--account")
    create = pool.add_parser("create", help="create a platform pool (account_id null, read-only to accounts)")
    create.add_argument("--name", required=True)
    create.add_argument("--type", type=PoolType, default=PoolType.SHARED, choices=list(PoolType))
    create.add_argument("--region")
    reputation = pool.add_parser("set-reputation", help="a pool's staff-managed reputation (0-100, or none)")
    reputation.add_argument("pool_id")
    reputation.add_argument("reputation", help="0-100, or 'none'")
    details = pool.add_parser("set-ip-details", help="a pool's staff-managed per-IP metadata (JSON object, or none)")
    details.add_argument("pool_id")
    details.add_argument("ip_details", help='e.g. \'{"192.0.2.10": {"ptr": "mta1.example"}}\', or none')
    for parser in (reputation, details):
        parser.add_argument("--account", help="the account whose pool it is (default: a platform pool)")
    ip = commands.add_parser("ip", help="IP addresses").add_subparsers(dest="action", required=True)
    allocate = ip.add_parser("allocate", help="allocate an address to an account, into one of its pools")
    allocate.add_argument("ip")
    allocate.add_argument("--pool", required=True, help="the pool's id")
    allocate.add_argument("--account", help="the account (default: a platform pool)")
    allocate.add_argument(
        "--allocation-id", help="the relay's Elastic IP this address is (stack output RelayAddress<N>AllocationId)"
    )
    ip.add_parser("release", help="take an address back from whoever holds it").add_argument("ip")


def run(args: argparse.Namespace) -> None:
    operator = operator_root.operator_service()
    if args.command == "account":
        if args.action == "create":
            _print(
                operator.create_account(
                    name=args.name, plan=args.plan, status=args.status, owner_email=args.owner_email
                )
            )
        elif args.action == "show":
            _print(operator.get_account(args.account_id))
        elif args.action in ("suspend", "activate", "set-status"):
            _print(operator.set_status(args.account_id, args.status))
        elif args.action == "set-plan":
            _print(operator.set_plan(args.account_id, args.plan))
        elif args.action == "set-rate-limit":
            per_minute = None if args.per_minute == "default" else int(args.per_minute)
            _print(operator.set_rate_limit(args.account_id, per_minute))
        elif args.action == "set-storage-addon":
            _print(operator.set_storage_addon(args.account_id, args.addon))
        elif args.action == "set-quota-source":
            _print(_set_quota_source(operator, args.account_id, QuotaSource(args.source)))
        elif args.action == "grant-credits":
            _print(_grant_credits(operator, args.account_id, args.credits))
        elif args.action == "set-verify-before-send":
            _print(operator.set_verify_before_send(args.account_id, args.setting == "on"))
    elif args.command == "sandbox":
        _sandbox(operator, args)
    elif args.command == "key":
        _print(operator.create_key(args.account_id, name=args.name, env=args.env, scope=args.scope))
    elif args.command == "events" and args.action == "set-shards":
        _set_event_shards(args.account_id, args.count, args.rate)
    elif args.command == "events":
        _backfill_event_keys(args.segments)
    elif args.command == "metrics" and args.action == "pack":
        _pack_metrics(args.account_id)
    elif args.command == "metrics" and args.action == "reputation":
        snapshot = metrics_root.reputation_service().evaluate(args.account_id, args.mode)
        _print({"account_id": args.account_id, "mode": args.mode, "domains": snapshot.domains,
                "ip_pools": snapshot.pools, "ips": snapshot.ips})  # fmt: skip
    elif args.command == "metrics":
        _backfill_metrics(args.account_id, args.since, args.until)
    elif args.command == "retention":
        _register_accounts()
    elif args.command == "domain":
        _domain(args)
    elif args.command == "tlsrpt" and args.action == "dkim":
        _report_dkim(args.step)
    elif args.command == "verify":
        _print(verification.bulk_verification_service().resume(args.account_id, args.job_id))
    elif args.command == "tlsrpt":
        _print(tlsrpt_root.queue_tls_reports(args.day))
    elif args.command in ("ip-pool", "ip"):
        _ip_pools(args)
    elif args.command == "console":
        if not args.pool_id:
            raise SystemExit("Give --pool-id or set CONSOLE_USER_POOL_ID (the stack's ConsoleUserPoolId output).")
        account = operator.get_account(args.account_id)  # 404 before anyone is invited into nothing
        _print(auth_root.console_users().invite(args.pool_id, args.email, account.id, args.scope))
    elif args.command == "sending":
        paused = args.action == "pause"
        operator.set_sending_paused(None if args.all else args.account_id, paused)
        _print({"target": "platform" if args.all else args.account_id, "sending_paused": paused})


def _sandbox(operator: OperatorService, args: argparse.Namespace) -> None:
    account_id = args.account_id
    if args.action in ("on", "off"):
        operator.set_sandbox(account_id, args.action == "on")
    elif args.action == "add":
        operator.add_sandbox_recipients(account_id, args.addresses)
    elif args.action == "remove":
        operator.remove_sandbox_recipients(account_id, args.addresses)
    elif args.action == "route" and args.key_id:
        operator.set_key_routed_to_sandbox(account_id, args.key_id, args.setting == "on")
        _print({"account_id": account_id, "key_id": args.key_id, "routed_to_sandbox": args.setting == "on"})
        return
    elif args.action == "route":
        operator.set_routed_to_sandbox(account_id, args.setting == "on")
    account = operator.get_account(account_id)
    _print(account.model_dump(include={"id", "sandbox", "sandbox_recipients", "owner_email", "routed_to_sandbox"}))


def _grant_credits(operator: OperatorService, account_id: str, credits: int) -> dict[str, object]:
    """Pay-as-you-go (usage/pool.py): the account's quota_source becomes payg_credits, its balance grows."""
    if credits < 1:
        raise SystemExit("credits: a positive number")
    operator.get_account(account_id)  # 404 before anything is written
    balance = usage.counter_store().grant_credits(account_id, credits)
    account = operator.set_quota_source(account_id, QuotaSource.PAYG_CREDITS, f"granted {credits} credits")
    return {"id": account.id, "quota_source": account.quota_source.value, "credits": balance}


def _set_quota_source(operator: OperatorService, account_id: str, source: QuotaSource) -> dict[str, object]:
    """Whose quota the account's live sends draw from (usage/pool.py): a subaccount's organisation's
    pool (shared_pool, a subaccount's default) or its own plan; credits left stay for a return to
    payg_credits (grant-credits)."""
    account = operator.get_account(account_id)  # 404 before anything is written
    if source is QuotaSource.SHARED_POOL and account.parent_account_id is None:
        raise SystemExit(f"{account_id} is not a subaccount: only a subaccount draws from an organisation's pool")
    account = operator.set_quota_source(account_id, source, f"quota source {source.value}")
    shown = {"id": account.id, "quota_source": account.quota_source.value}
    return {**shown, "parent_account_id": account.parent_account_id}


def _domain(args: argparse.Namespace) -> None:
    service = domains.domain_service()
    if args.action == "list":
        _print(service.account_domains(args.account_id))
    elif args.action == "records":
        domain = service.account_domain(args.account_id, args.domain_id)
        _print(domain.model_dump(mode="json", include={"id", "domain", "status", "dns_records"}))
    elif args.action == "recheck":
        checked = service.recheck(args.account_id, args.domain_id)
        _print(domain_view(checked))
    elif args.action == "share":
        _print(
            service.set_sharing(
                args.account_id,
                args.domain_id,
                with_company=None if args.with_company is None else args.with_company == "on",
                external_accounts=None
                if args.external_accounts is None
                else [a.strip() for a in args.external_accounts.split(",") if a.strip()],
                owner_workspace_name=args.owner_workspace,
            )
        )


def _ip_pools(args: argparse.Namespace) -> None:
    admin = ip_pools_root.ip_pool_admin()
    if args.command == "ip" and args.action == "allocate":
        _print(admin.allocate(args.ip, account_id=args.account, pool_id=args.pool, allocation_id=args.allocation_id))
    elif args.command == "ip":
        _print(admin.release(args.ip))
    elif args.action == "list":
        _print({"items": [pool.model_dump(mode="json") for pool in admin.list_pools(args.account)]})
    elif args.action == "create":
        _print(admin.create_platform_pool(name=args.name, type=args.type, region=args.region))
    elif args.action == "set-reputation":
        reputation = None if args.reputation == "none" else int(args.reputation)
        _print(admin.set_staff_fields(args.account, args.pool_id, reputation=reputation))
    elif args.action == "set-ip-details":
        details = None if args.ip_details == "none" else json.loads(args.ip_details)
        _print(admin.set_staff_fields(args.account, args.pool_id, ip_details=details))


def _backfill_event_keys(segments: int) -> None:
    store = events_root.event_store()
    with ThreadPoolExecutor(max_workers=segments) as pool:
        runs = pool.map(lambda n: store.backfill_index_keys(segment=n, segments=segments), range(segments))
        done = sum(runs, Backfilled())
        _print({"updated": done.events, "tag_items": done.tag_items})


def _set_event_shards(account_id: str, count: int | None, rate: float | None) -> None:
    from postline.events.sharding import WRITE_UNITS_PER_MESSAGE, shards_for

    if (count is None) == (rate is None):
        raise SystemExit("give a count or --rate, not both")
    try:
        wanted = count if count is not None else shards_for(rate or 0, WRITE_UNITS_PER_MESSAGE)
        schedule = events_root.shard_directory().set_count(account_id, wanted, datetime.now(UTC))
    except ValueError as error:
        raise SystemExit(str(error)) from error
    _print(
        {
            "account_id": account_id,
            "steps": [{"from": f"{at:%Y-%m-%dT%H:%M:%SZ}", "shards": n} for at, n in schedule.steps],
        }
    )


def _report_dkim(step: str) -> None:
    service = tlsrpt_root.report_key_service()
    if step == "rotate":
        service.rotate()
    elif step == "promote":
        service.promote()
    _print(
        {
            "records": [
                {"key": role, "type": "TXT", "name": key.record_name, "value": key.record_value}
                for role, key in service.published().items()
            ]
        }
    )


def _register_accounts() -> None:
    from postline.config import Counters, Resources
    from postline.events.count_store import DynamoEventCounts
    from postline.retention.store import register_existing_accounts

    client = wiring.client("dynamodb")
    registry = DynamoEventCounts(client, wiring.settings(Counters).table)
    _print({"registered": register_existing_accounts(client, wiring.settings(Resources).table, registry)})


def _backfill_metrics(account_id: str, since: date, until: date) -> None:
    service, events = metrics_root.rollup_service(), events_root.event_store()
    days = [since + timedelta(days=n) for n in range((until - since).days + 1)]
    counted = {f"{day}": service.rebuild_day(account_id, day, events) for day in days}
    complete = service.mark_complete(account_id, since, until)
    _print(
        {"account_id": account_id, "events_counted": counted, "counts_complete_from": f"{since}" if complete else None}
    )


def _pack_metrics(account_id: str) -> None:
    from postline.metrics.packing import PackingRun

    run = PackingRun()
    metrics_root.packing_service().pack_account(account_id, run)
    through = metrics_root.rollups().packed_through(account_id)
    _print({"account_id": account_id, "packed_through": f"{through}" if through else None, **run.as_dict()})


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _require_environment(args.command)
    try:
        run(args)
    except ApiError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
