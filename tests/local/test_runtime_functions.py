"""The runtime's functions fail as Lambda and API Gateway do: concurrent instances, timeouts, 502/504."""

from __future__ import annotations

import io
import json
import logging
import re
import sys
import threading
import types
from pathlib import Path

import pytest
import yaml
from werkzeug.test import Client
from werkzeug.wrappers import Response

from devtools.local.cloudformation import Resolver, Template
from devtools.local.functions import FunctionTimeout, LocalFunction, complete_shared_models
from devtools.local.gateway import (
    FUNCTION_ERROR_MESSAGE,
    INTEGRATION_TIMEOUT_MESSAGE,
    ApiRoute,
    Gateway,
    GatewayHeaders,
    gateway_headers,
)
from postline.observability import logger
from postline.shared.base import Model
from tests.fakes.shared import FixedClock

ROOT = Path(__file__).resolve().parents[2]
# A handler module that answers which instance ran it; the event says what the invocation does.
MODULE = """
import time
INSTANCE = __name__.rsplit("_", 1)[1]  # the runtime loads instance n as postline_local_<id>_<n>
def handler(event, context):
    event = event.get("queryStringParameters") or event  # invoked directly, or through the gateway
    if event.get("meet"):
        event["meet"].wait(timeout=5)  # returns at once only if another invocation meets it
    if event.get("sleep"):
        time.sleep(float(event["sleep"]))
    if event.get("fail"):
        raise RuntimeError("boom")
    return {"statusCode": 200, "body": str(INSTANCE)}
"""


@pytest.fixture
def function(tmp_path: Path) -> LocalFunction:
    (tmp_path / "slow.py").write_text(MODULE)
    return LocalFunction("SlowFunction", "slow.handler", tmp_path, memory=128, timeout=1, events={})


def test_concurrent_invocations_run_in_separate_instances_at_once(function: LocalFunction) -> None:
    meet = threading.Barrier(2)
    answers: list[dict[str, object]] = []
    calls = [threading.Thread(target=lambda: answers.append(function.invoke({"meet": meet}))) for _ in range(2)]
    for call in calls:
        call.start()
    for call in calls:
        call.join()

    assert not meet.broken  # both were inside the handler together: neither queued behind the other
    assert sorted(str(answer["body"]) for answer in answers) == ["1", "2"]
    assert function.invoke({})["body"] in ("1", "2")  # an idle instance is reused, not loaded again


def test_an_invocation_past_its_timeout_is_abandoned_with_its_instance(function: LocalFunction) -> None:
    assert function.invoke({})["body"] == "1"
    with pytest.raises(FunctionTimeout, match=r"Task timed out after 1\.00 seconds"):
        function.invoke({"sleep": 3})

    assert function.invoke({})["body"] == "2"  # the timed-out instance is never used again


class _NoResources:
    def ref(self, logical_id: str) -> str:
        raise AssertionError(f"the gateway responses name no resource ({logical_id})")

    def get_att(self, logical_id: str, attribute: str) -> str:
        raise AssertionError(f"the gateway responses name no resource ({logical_id}.{attribute})")


def _template_headers(ip_rate_limit: str = "600") -> GatewayHeaders:
    """The fixed headers of template.yaml's gateway responses, as the runtime reads them."""
    template = Template.load(ROOT / "template.yaml")
    parameters = template.parameter_values({"IpRateLimitPerMinute": ip_rate_limit})
    return gateway_headers(template, Resolver(parameters, _NoResources()))


def _gateway(function: LocalFunction, integration_timeout: float = 29.0) -> Client:
    route = ApiRoute.of(function, "GET", "/v3/slow", "prod")
    openapi = ROOT / "infra" / "openapi.json"
    return Client(
        Gateway(
            [route],
            lambda _request: Response(status=404),
            openapi,
            FixedClock(),
            integration_timeout,
            headers=_template_headers("750"),
        )
    )


RATE_HEADERS = {"X-RateLimit-Limit": "750", "X-RateLimit-Remaining": "750", "X-RateLimit-Reset": "60"}


def test_a_function_that_fails_or_times_out_is_a_502_in_the_error_shape(function: LocalFunction) -> None:
    gateway = _gateway(function)
    failed = gateway.get("/v3/slow", query_string={"fail": "1"})
    timed_out = gateway.get("/v3/slow", query_string={"sleep": "3"})  # past its 1 s Timeout

    assert gateway.get("/v3/slow").status_code == 200
    for response in (failed, timed_out):
        assert response.status_code == 502
        assert {name: response.headers.get(name) for name in RATE_HEADERS} == RATE_HEADERS
        assert response.json == {
            "error": {"code": "internal_error", "message": FUNCTION_ERROR_MESSAGE},
            "request_id": response.headers["X-Request-Id"],
        }


def test_past_the_integration_timeout_the_gateway_answers_504(function: LocalFunction) -> None:
    function.timeout = 5
    response = _gateway(function, integration_timeout=0.2).get("/v3/slow", query_string={"sleep": "1"})

    assert response.status_code == 504
    assert response.json["error"] == {"code": "internal_error", "message": INTEGRATION_TIMEOUT_MESSAGE}
    assert {name: response.headers.get(name) for name in RATE_HEADERS} == RATE_HEADERS


def test_the_runtime_answers_what_the_templates_gateway_responses_say() -> None:
    responses = yaml.safe_load((ROOT / "template.yaml").read_text())["Resources"]["Api"]["Properties"][
        "GatewayResponses"
    ]

    def message(kind: str) -> str:
        found = re.search(r'"message": "([^"]*)"', responses[kind]["ResponseTemplates"]["application/json"])
        assert found, kind
        return found[1]

    assert message("DEFAULT_5XX") == FUNCTION_ERROR_MESSAGE
    assert message("INTEGRATION_TIMEOUT") == INTEGRATION_TIMEOUT_MESSAGE
    assert responses["INTEGRATION_TIMEOUT"]["StatusCode"] == "504"


def test_every_gateway_response_carries_the_rate_headers() -> None:
    """The interface puts the rate headers on every response, the ones API Gateway makes too."""
    headers = _template_headers("600")
    kinds = yaml.safe_load((ROOT / "template.yaml").read_text())["Resources"]["Api"]["Properties"]["GatewayResponses"]
    assert set(headers) == set(kinds)
    for kind, fixed in headers.items():
        assert fixed["X-RateLimit-Limit"] == "600", kind
        if kind == "THROTTLED":
            assert (fixed["X-RateLimit-Remaining"], fixed["X-RateLimit-Reset"], fixed["Retry-After"]) == ("0", "1", "1")
        else:
            assert (fixed["X-RateLimit-Remaining"], fixed["X-RateLimit-Reset"]) == ("600", "60"), kind


LOGGING_MODULE = """
from postline.observability import logger
from postline.shared.base import Model

@logger.inject_lambda_context(clear_state=True)
def handler(event, context):
    if "delivery_id" in event:
        logger.thread_safe_append_keys(delivery_id=event["delivery_id"])
    logger.info("attempt")
"""


def test_log_keys_never_outlive_their_invocation(tmp_path: Path) -> None:
    (tmp_path / "logs.py").write_text(LOGGING_MODULE)
    function = LocalFunction("LogsFunction", "logs.handler", tmp_path, memory=128, timeout=3, events={})
    written = io.StringIO()
    handler = logger.registered_handler
    assert isinstance(handler, logging.StreamHandler)
    previous = handler.setStream(written)  # the service's logger writes where it was first told to
    try:
        function.invoke({"delivery_id": "whd_first"})
        function.invoke({})  # the same instance, as a warm container: the key must be gone
    finally:
        handler.setStream(previous)

    lines = [json.loads(line) for line in written.getvalue().splitlines() if '"attempt"' in line]
    assert [line.get("delivery_id") for line in lines] == ["whd_first", None]


def test_an_instance_starts_with_every_layer_model_it_imports_already_built(tmp_path: Path) -> None:
    # Instances share the layer's classes, unlike Lambda's environments, and pydantic's lazy build
    # (defer_build) is not thread-safe: two cold routes validating one half-built model at once
    # answered 400 (a reply "failing" its own model) in the console's browser test.
    (tmp_path / "uses_models.py").write_text(
        "from pydantic import Field\n"
        "from postline.shared.base import Model\n"
        "class Fresh(Model):\n"
        "    count: int = Field(ge=0)\n"
        "def handler(event, context):\n"
        "    return Fresh.__pydantic_complete__\n"
    )
    fresh = LocalFunction("ModelsFunction", "uses_models.handler", tmp_path, memory=128, timeout=5, events={})
    assert fresh.invoke({}) is True


LAZY_MODULE = "from __future__ import annotations\nclass Late(Model):\n    n: pause_creation() = 0\n"


def test_a_model_another_thread_is_still_creating_is_left_to_its_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    # An invocation's lazy import (the composition root's) can be creating a model's class while
    # another instance loads and completes the models it finds. Found through `__subclasses__()`
    # half-created, the build was undone by pydantic's next step: the class stayed marked complete
    # with a placeholder validator that recursed on every use, and the webhook fan-out failed
    # every batch after it.
    inside, release, made = threading.Event(), threading.Event(), []

    def pause_creation() -> type[int]:  # evaluated while pydantic collects the class's fields
        inside.set()
        assert release.wait(timeout=10)
        return int

    def create() -> None:
        module = types.ModuleType("lazily_imported")  # as an import in an invocation makes it
        module.__dict__.update(Model=Model, pause_creation=pause_creation)
        monkeypatch.setitem(sys.modules, module.__name__, module)
        exec(LAZY_MODULE, module.__dict__)  # noqa: S102 - the test's own text, as an import runs a file
        made.append(module.Late)

    creating = threading.Thread(target=create)
    creating.start()
    assert inside.wait(timeout=10)
    complete_shared_models()  # another instance's load, meanwhile
    release.set()
    creating.join(timeout=10)
    assert made[0](n=3).n == 3
    assert made[0].__pydantic_complete__


POWERTOOLS_MODULE = """
import sys, threading, types
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
app = APIGatewayRestResolver()
# One barrier for both instances (each loads this module as its own copy).
MEET = sys.modules.setdefault("echo_meet", types.SimpleNamespace(barrier=threading.Barrier(2, timeout=5))).barrier
@app.get("/echo")
def echo():
    asked = app.current_event.query_string_parameters["n"]
    MEET.wait()  # both invocations are inside resolve at once
    return {"asked": asked, "seen": app.current_event.query_string_parameters["n"]}
def handler(event, context):
    return app.resolve(event, context)
"""


def test_concurrent_invocations_each_resolve_their_own_event(tmp_path: Path) -> None:
    # Powertools keeps the event it resolves on a class (BaseRouter.current_event): instances share
    # it in one process, and two requests at once answered each other's query (a console 400).
    (tmp_path / "echo.py").write_text(POWERTOOLS_MODULE)
    echo = LocalFunction("EchoFunction", "echo.handler", tmp_path, memory=128, timeout=10, events={})

    def event(n: int) -> dict[str, object]:
        return {"httpMethod": "GET", "path": "/echo", "resource": "/echo", "queryStringParameters": {"n": str(n)},
                "headers": {}, "requestContext": {"requestId": f"r{n}"}, "body": None}  # fmt: skip

    answers: dict[int, object] = {}
    calls = [threading.Thread(target=lambda n=n: answers.update({n: echo.invoke(event(n))})) for n in (1, 2)]
    for call in calls:
        call.start()
    for call in calls:
        call.join()
    for n in (1, 2):
        assert json.loads(answers[n]["body"]) == {"asked": str(n), "seen": str(n)}  # type: ignore[index]
