"""The embedded runtime: the whole service from template.yaml on this machine, on loopback.

    with Runtime(Path("template.yaml"), Path(".local")) as runtime:
        requests.get(f"{runtime.base_url}/v3/whoami", headers={"Authorization": f"Bearer {key}"})

Handlers, pumps, schedules, the gateway and the mail sink run in this process; the AWS emulator
in a child (see emulator.py). The runtime sets process-wide state (os.environ, the wiring clock)
while running and restores it on stop, so run one Runtime per process at a time.
"""

from __future__ import annotations

import contextvars
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from devtools.local import background, bootstrap, collector
from devtools.local.activity import Activity
from devtools.local.cloudformation import REGION, Resolver, Template
from devtools.local.console import LocalConsole
from devtools.local.control import Control
from devtools.local.dns_server import DnsServer
from devtools.local.emulator import Emulator
from devtools.local.functions import FunctionCrashed, function_environment, load_functions, warn_unsupported_events
from devtools.local.gateway import Gateway, HttpServer, api_routes, gateway_headers
from devtools.local.mail_sink import HOST as MAIL_HOST
from devtools.local.mail_sink import MailSink
from devtools.local.provisioning import STATE_MACHINE, Deployed, Stack, deploy
from devtools.local.pumps import BatchSettings, Pump, SqsPump, StreamPump, event_source_pumps
from devtools.local.schedules import SchedulerSchedules, queue_schedules, rule_schedules
from devtools.local.smtp_tls import CERT_FILE, local_certificate, server_context
from devtools.local.spamd import Spamd
from devtools.local.ticker import Ticker
from devtools.local.workflows import Workflows
from devtools.moto_patches import header_lines
from postline import wiring
from postline.deployment import RELAY_SETTINGS, SMTP_SETTINGS
from postline.relay.probes import ProbeServer
from postline.relay.worker import BATCH_SIZE, deliver_batch
from postline.shared.clock import MovableClock
from postline.smtp.server import SubmissionServer
from postline.wiring import delivery, tlsrpt, verification
from postline.wiring import smtp as smtp_root

_DRAIN_POLL_SECONDS = 0.02
SNAPSHOT_FILE = "emulator.pickle"  # in the state dir, beside dev.json
SNAPSHOT_INTERVAL_SECONDS = 30.0


class Runtime:
    """start()/stop() or a context manager; then base_url, endpoint_url, env, dev, clock,
    advance(seconds) and drain(timeout), which /_local/ also serves."""

    def __init__(
        self,
        template_path: Path,
        state_dir: Path,
        *,
        api_port: int = 0,
        aws_port: int = 0,
        mail_port: int = 0,
        smtp_port: int = 0,
        parameters: Mapping[str, str] | None = None,
        log_level: str = "WARNING",
        dev_account: bool = True,
        persist: bool = False,
        spamd: bool = False,
    ) -> None:
        """`persist`: restore the emulator's state from the state dir at start, and snapshot it there
        every half minute and at stop (persistence.py says what is kept). `spamd`: start spamd for the
        content check when it is installed (SpamdAddress; without it the check says unavailable)."""
        self._spamd = Spamd() if spamd and Spamd.installed() else None
        self._template = Template.load(template_path)
        self._state_dir = state_dir
        self._api_port = api_port
        self._parameter_overrides = dict(parameters or {})
        self._log_level = log_level
        self._dev_account = dev_account
        self._persist = persist
        self._emulator = Emulator(aws_port, state_dir / SNAPSHOT_FILE if persist else None)
        self._mail = MailSink(mail_port)
        self._smtp_port = smtp_port
        self._submission: SubmissionServer | None = None
        self._probes: ProbeServer | None = None
        self.dns = DnsServer()  # the machine's DNS for the functions, unless DnsResolver says otherwise
        self.clock = MovableClock()
        self._activity = Activity()
        self._pumps: list[Pump] = []
        self._ticker: Ticker | None = None
        self._gateway: HttpServer | None = None
        self._app: Gateway | None = None
        self._env: dict[str, str] = {}
        self._dev: bootstrap.DevState | None = None
        self._stack: Stack | None = None
        self._running = ExitStack()
        self.console = LocalConsole(self._template.root / "console" / "dist")

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        with ExitStack() as starting:  # on a failed start, stop what did start
            self._state_dir.mkdir(parents=True, exist_ok=True)
            # Before any client is made: the pipeline's requests yield to callers' (here and in the emulator).
            background.install(self._activity.pipeline_request)
            starting.callback(background.uninstall)
            # The answers of the emulator, the mail sink and webhook receivers are read without the
            # email package's parser, as the emulator reads requests (its header_lines.py says why).
            starting.enter_context(header_lines.installed())
            self._emulator.start()
            starting.callback(self._emulator.stop)
            restored = self._emulator.restored()
            if self._persist:
                starting.callback(self.snapshot)  # the last one: after the pumps, before the emulator stop
            self._mail.start()
            starting.callback(self._mail.stop)
            if self._spamd is not None:
                self._spamd.start()
                starting.callback(self._spamd.stop)
            self.dns.start()
            starting.callback(self.dns.stop)
            self.dns.load((restored or {}).get("dns", []))  # what /_local/dns published before the restart
            # The relay task's mailbox probe endpoint, in this process: POST /v3/validate asks it
            # over HTTP exactly as it asks the relay tasks in the cloud (VerifySmtpProbe=relay).
            self._probes = ProbeServer(
                verification.direct_mailbox_prober,
                host=MAIL_HOST,
                port=0,
                scope=lambda: wiring.settings_scope(RELAY_SETTINGS),
            )
            self._probes.start()
            starting.callback(self._probes.stop)
            self._gateway = HttpServer(self._api_port)
            self._gateway.bind()
            starting.callback(self._gateway.stop)

            parameters = self._template.parameter_values(self._local_parameters(self._gateway.base_url))
            existing = {lid: Deployed(**deployed) for lid, deployed in (restored or {}).get("stack", {}).items()}
            stack = self._stack = deploy(self._template, parameters, self._emulator.client, existing)
            if restored and (then := datetime.fromisoformat(restored["now"])) > self.clock.now():
                self.clock.advance((then - self.clock.now()).total_seconds())  # time never runs back
            self._emulator.set_clock(self.clock.now())  # stream records are kept 24 hours on it
            resolver = Resolver(parameters, stack, self._template.conditions)
            self._env = {
                **self._emulator.environment(),
                **function_environment(self._template, resolver),
                "POWERTOOLS_TRACE_DISABLED": "true",
                "POWERTOOLS_LOG_LEVEL": self._log_level,
            }
            starting.callback(_set_environment(self._env))
            starting.callback(_install_clock(self.clock))

            functions = list(load_functions(self._template).values())
            warn_unsupported_events(functions)
            checkpoints = restored.get("checkpoints", {}) if restored else None
            self._pumps = event_source_pumps(
                functions, resolver, self._emulator, self.clock, self._activity, checkpoints
            )
            if RELAY_QUEUE in self._template.resources:  # a template without the relay task has no queue for it
                self._pumps.append(self._relay_pump(resolver))
            machines = [stack.ref(lid) for lid, res in self._template.resources.items() if res["Type"] == STATE_MACHINE]
            self._ticker = Ticker(
                self.clock,
                [
                    *rule_schedules(functions, self.clock.now(), self._activity),
                    SchedulerSchedules(self._emulator, self._activity),
                    *queue_schedules(self._template, resolver, self._emulator, self.clock.now(), self._activity),
                    Workflows(self._emulator, machines, functions, self._activity),
                    *(pump for pump in self._pumps if isinstance(pump, SqsPump)),
                    *([_Every(SNAPSHOT_INTERVAL_SECONDS, self.snapshot)] if self._persist else []),
                ],
            )
            for pump in self._pumps:
                pump.start()
            starting.callback(Pump.stop_all, self._pumps, self._emulator.wake)
            self._ticker.start()
            starting.callback(self._ticker.stop)

            control = Control(self.advance, self.drain, self._mail, self.dns)
            routes = api_routes(self._template, functions, resolver)
            openapi = self._template.root / "infra" / "openapi.json"
            headers = gateway_headers(self._template, resolver)
            self._app = Gateway(
                routes, control, openapi, self.clock, activity=self._activity, headers=headers, console=self.console
            )
            self._gateway.serve(self._app)

            # The SMTP submission task, in this process: the same service, held to its declared settings.
            cert, key = local_certificate(self._state_dir)
            self._submission = SubmissionServer(
                smtp_root.submission_service,
                host=MAIL_HOST,
                port=self._smtp_port,
                tls=server_context(cert, key),
                trust_loopback=True,
                scope=lambda: submission_scope(self._activity),
            )
            self._submission.start()
            starting.callback(self._submission.stop)

            self._dev = self._bootstrap()
            if self._dev.account_id:  # the console signs in to the development account
                issuer = self._env.get("CONSOLE_JWT_ISSUER", "")
                audience = self._env.get("CONSOLE_JWT_AUDIENCE", "")
                self.console.configure(self._dev.account_id, audience=audience, issuer=issuer)
            collector.install()  # a full collection walks what is new, not every module and model again
            starting.callback(collector.uninstall)
            self._running = starting.pop_all()

    def stop(self) -> None:
        self._running.close()

    def __enter__(self) -> Runtime:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what callers use ------------------------------------------------------------------

    def wake_polls(self) -> None:
        """Ends the pumps' long polls in progress (each returns empty and polls again)."""
        self._emulator.wake()

    @property
    def base_url(self) -> str:
        if self._gateway is None:
            raise RuntimeError("the runtime is not running")
        return self._gateway.base_url

    @property
    def endpoint_url(self) -> str:
        return self._emulator.endpoint_url

    def emulator_cpu_seconds(self) -> float | None:
        """CPU time the emulator's process has used so far (Emulator.cpu_seconds)."""
        return self._emulator.cpu_seconds()

    @property
    def spamd(self) -> str | None:
        """host:port of the runtime's spamd; None when it runs without one."""
        return self._spamd.address if self._spamd is not None else None

    @property
    def mail_sink(self) -> str:
        """host:port of the local outbound mail sink."""
        return f"{MAIL_HOST}:{self._mail.port}"

    @property
    def smtp(self) -> str:
        """host:port of the SMTP submission server (STARTTLS with `smtp_certificate`, AUTH with a key)."""
        if self._submission is None:
            raise RuntimeError("the runtime is not running")
        return f"{MAIL_HOST}:{self._submission.port}"

    @property
    def smtp_certificate(self) -> Path:
        """The submission server's self-signed certificate: what a STARTTLS client trusts."""
        return self._state_dir / CERT_FILE

    @property
    def env(self) -> dict[str, str]:
        """The functions' environment plus the emulator's AWS settings: enough for the CLI."""
        return dict(self._env)

    @property
    def dev(self) -> dict[str, Any]:
        """dev.json as written at this start."""
        if self._dev is None:
            raise RuntimeError("the runtime is not running")
        return self._dev.model_dump()

    def console_link(self) -> str | None:
        """A new one-time sign-in link to the console, or None without a development account."""
        return self.console.sign_in_link(self.base_url) if self.dev["account_id"] else None

    def snapshot(self) -> None:
        """Writes the emulator's state, this runtime's stack, stream positions, clock and DNS zone."""
        if self._stack is None:
            return
        document = {
            "stack": {logical_id: asdict(deployed) for logical_id, deployed in self._stack.deployed().items()},
            "checkpoints": {pump.key: pump.checkpoints() for pump in self._pumps if isinstance(pump, StreamPump)},
            "now": self.clock.now().isoformat(),
            "dns": self.dns.document(),
        }
        self._emulator.snapshot(document)

    @contextmanager
    def gateway_cut(self, seconds: float) -> Iterator[None]:
        """API Gateway's integration timeout (29 s) shortened meanwhile: a call past it is answered
        504 while its function runs on, as in AWS (tests of what a retry of a cut call meets)."""
        if self._app is None:
            raise RuntimeError("the runtime is not running")
        before, self._app.integration_timeout = self._app.integration_timeout, seconds
        try:
            yield
        finally:
            self._app.integration_timeout = before

    def advance(self, seconds: float) -> datetime:
        """Moves the clock forward and fires whatever became due."""
        self.clock.advance(seconds)
        self._emulator.set_clock(self.clock.now())
        self._tick()
        return self.clock.now()

    def drain(self, timeout: float) -> list[str]:
        """Waits until nothing is left to deliver now; returns what is still busy ([] when idle).

        Idle means: consumed queues hold no visible or in-flight messages (failed messages waiting
        out their visibility timeout on the clock are due later), every stream has been read to
        its end, due schedules have fired, and no delivery ran while this was being checked.
        """
        deadline = time.monotonic() + timeout
        while True:
            self._tick()
            before = self._activity.snapshot()
            last = time.monotonic() >= deadline  # this look's answer is the call's: name every busy pump
            if before.running and not last:
                # Busy without asking the emulator: a look asks it for the queues' depths and a
                # GetRecords per stream pump, and asked every 20 ms those requests slowed the work awaited.
                time.sleep(_DRAIN_POLL_SECONDS)
                continue
            busy: list[str] = []
            depths = self._queue_depths()
            # SQS pumps first: their answers are in hand, while a stream pump asks the emulator.
            for pump in sorted(self._pumps, key=lambda pump: not isinstance(pump, SqsPump)):
                idle = pump.idle(depths.get(pump.queue_name)) if isinstance(pump, SqsPump) else pump.idle()
                if not idle:
                    busy.append(pump.name)
                    if not last:
                        break  # one is enough to look again
            if before.running or self._activity.snapshot() != before:
                busy.append("functions still running")
            if not busy or last:
                return busy
            time.sleep(_DRAIN_POLL_SECONDS)

    def _queue_depths(self) -> dict[str, tuple[int, int]]:
        """Every SQS pump's queue depths in one request (a queue left out: its pump asks itself)."""
        names = [pump.queue_name for pump in self._pumps if isinstance(pump, SqsPump)]
        return self._emulator.queue_depths(names) if names else {}

    # -- assembly --------------------------------------------------------------------------

    def _local_parameters(self, base_url: str) -> dict[str, str]:
        """The caller's parameters, plus what only this machine knows unless the caller said otherwise:
        outbound mail goes to the local sink, tracking links point at this gateway, queue delays
        go through schedules (which the movable clock fires; SQS delays run on the wall clock),
        connections made for customers may go to this machine's receivers (AllowPrivateOutbound: webhooks
        to http://127.0.0.1:..., MX hosts the runtime's DNS points at 127.0.0.1), and DNS lookups (MX,
        sending domains' records) ask the runtime's own DNS server, whose zone `/_local/dns` edits."""
        declared = self._template.body.get("Parameters") or {}
        local = {
            "SmtpRelay": self.mail_sink,
            "PublicBaseUrl": base_url,
            "OutboundTransport": "smtp",
            "QueueMaxDelaySeconds": "0",
            "AllowPrivateOutbound": "true",
            "DnsResolver": self.dns.address,
            "VerifySmtpProbe": "relay",  # the in-process relay's probe endpoint, as in the cloud
            "RelayProbeAddress": self._probes.address if self._probes is not None else "",
            "SpamdAddress": self._spamd.address if self._spamd is not None else "",
        }
        chosen = {**{k: v for k, v in local.items() if k in declared}, **self._parameter_overrides}
        if "ConsoleJwks" in declared:  # the local issuer's key beside any signers the caller configured
            chosen["ConsoleJwks"] = self.console.key_set(chosen.get("ConsoleJwks", ""))
        return chosen

    def _relay_pump(self, resolver: Resolver) -> SqsPump:
        """The SMTP relay task, in this process: its queue fed to the same batch code by a pump, so its
        failed jobs wait on the runtime's clock and drain() waits for its deliveries."""
        queue_arn = resolver.resolve({"Fn::GetAtt": [RELAY_QUEUE, "Arn"]})
        settings = BatchSettings(_RelayTask(), batch_size=BATCH_SIZE, window_seconds=0, report_failures=True)
        sqs = self._emulator.client("sqs")
        return SqsPump(settings, sqs, self._emulator.queue_url(queue_arn), queue_arn, self.clock, self._activity)

    def _tick(self) -> None:
        if self._ticker is not None:
            self._ticker.tick()

    def _bootstrap(self) -> bootstrap.DevState:
        previous = bootstrap.previous_state(self._state_dir)
        account_id, keys = bootstrap.seed_dev_account(previous) if self._dev_account else (None, None)
        domain = bootstrap.seed_sending_domain(self._state_dir, account_id, self.dns) if account_id else None
        state = bootstrap.DevState(
            base_url=self.base_url,
            account_id=account_id,
            keys=keys,
            sending_domain=domain,
            aws=bootstrap.AwsTarget(
                endpoint_url=self.endpoint_url,
                region=REGION,
                env={k: v for k, v in self._env.items() if not k.startswith("AWS_")},
            ),
        )
        bootstrap.save_state(self._state_dir, state)
        return state


RELAY_QUEUE = "RelayQueue"  # the relay task's queue in template.yaml


class _RelayTask:
    """The relay task as a pump's consumer: each batch under the task's declared settings."""

    logical_id = "RelayTask"
    name = "relay"

    def __init__(self) -> None:
        self._worker_id = f"relay-{uuid.uuid4().hex[:8]}"

    def invoke(self, event: Any) -> Any:
        """One batch in a thread of its own, as a function's invocation runs: a task that dies mid-batch
        (a BaseException) is reported as FunctionCrashed and its messages come back to the queue."""
        outcome: list[tuple[bool, Any]] = []

        def run() -> None:
            try:
                with wiring.settings_scope(RELAY_SETTINGS):
                    outcome.append((True, deliver_batch(
                        event,
                        delivery.dispatcher(self._worker_id, hand_over=False),
                        lambda: tlsrpt.tls_report_service(self._worker_id),
                    )))  # fmt: skip
            except BaseException as error:
                outcome.append((False, error))

        name = f"{threading.current_thread().name} > relay-{self.logical_id}"
        thread = threading.Thread(target=contextvars.Context().run, args=(run,), name=name, daemon=True)
        thread.start()
        thread.join()
        ok, value = outcome[0]
        if ok:
            return value
        if isinstance(value, Exception):
            raise value
        raise FunctionCrashed(f"the relay task died ({type(value).__name__})")


class _Every:
    """Due work for the ticker: `work` once `seconds` of real time have passed since it last ran."""

    name = "snapshot"

    def __init__(self, seconds: float, work: Callable[[], None]) -> None:
        self._seconds = seconds
        self._work = work
        self._last = time.monotonic()

    def fire_due(self, now: datetime) -> None:
        if time.monotonic() - self._last >= self._seconds:
            self._work()
            self._last = time.monotonic()


def _set_environment(values: Mapping[str, str]) -> Callable[[], None]:
    """Applies `values` to os.environ; returns the function that puts the old values back."""
    previous = {name: os.environ.get(name) for name in values}
    os.environ.update(values)

    def restore() -> None:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        wiring.reset()

    return restore


def _install_clock(clock: MovableClock) -> Callable[[], None]:
    """Makes `clock` the services' clock and rebuilds clients for the new environment."""
    previous = wiring.clock()
    wiring.set_clock(clock)
    wiring.reset()

    def restore() -> None:
        wiring.set_clock(previous)

    return restore


def submission_scope(activity: Activity) -> ExitStack:
    """Around each call of the submission server into its service (AUTH, MAIL, DATA): the task's
    declared settings, and a call in flight, which the pipeline lets go first as it does an API
    call (in AWS neither shares an interpreter with the pipeline)."""
    scope = ExitStack()
    scope.enter_context(wiring.settings_scope(SMTP_SETTINGS))
    scope.enter_context(activity.calling())
    return scope
