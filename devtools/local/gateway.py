"""The local API Gateway: HTTP requests in, REST API proxy events (v1) to the template's functions.

A function with an `Events: {X: {Type: Api, Properties: {Path, Method}}}` serves that method
and path template ({id} for one segment, {proxy+} for the rest); the most specific template
wins, as in API Gateway. Unmatched requests, functions that fail or time out, and requests past
the 29-second integration timeout get what the template's GatewayResponses define (404
not_found; 502 and 504 internal_error), with the fixed headers those declare (the rate headers),
read from the template.

API Gateway's REST quotas are enforced as it enforces them, before any function runs: a body over
10 MB is 413, a request line and headers over 10,240 bytes together are 414 (when the path and
query string alone are) or 431, each with the API's error body (DEFAULT_4XX's `validation_error`).
So are the HTTP server's own refusals (a malformed request line, a header line past its limit):
JSON, never its HTML error page.
"""

from __future__ import annotations

import base64
import logging
import re
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from devtools.local.activity import Activity
from devtools.local.cloudformation import ACCOUNT_ID, Resolver, Template
from devtools.local.functions import IntegrationTimeout, LocalFunction
from devtools.local.responses import JsonResponse, error_body, error_response
from postline.shared.ports import Clock

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

logger = logging.getLogger(__name__)
DEFAULT_PORT = 3000
OPENAPI_PATH = "/v3/openapi.json"  # served locally only, from infra/openapi.json
API_ID = "local"
CONSOLE_PATH = "/console"  # the dashboard, served by the runtime (devtools/local/console.py)
RAW_HEADERS = "devtools.local.raw_headers"  # WSGI environ key: the request's headers as sent
# API Gateway's integration timeout, and the messages of the template's GatewayResponses
# (DEFAULT_5XX for a function's error or timeout, INTEGRATION_TIMEOUT past 29 s).
INTEGRATION_TIMEOUT_SECONDS = 29.0
FUNCTION_ERROR_MESSAGE = "Something went wrong on our side; retry with backoff."
INTEGRATION_TIMEOUT_MESSAGE = (
    "The request did not finish within 29 seconds and may have taken effect; retry with the same Idempotency-Key."
)
MAX_PAYLOAD_BYTES = 10 * 1024 * 1024  # API Gateway's payload quota
MAX_REQUEST_HEAD_BYTES = 10_240  # API Gateway's quota on the request line and header values together
_IMPLICIT_API_STAGE = "Prod"  # SAM's stage for functions without a RestApiId
# API Gateway's gateway response types for the answers this gateway makes itself. A type the
# template does not define falls back to DEFAULT_4XX or DEFAULT_5XX, as in API Gateway.
NO_ROUTE = "MISSING_AUTHENTICATION_TOKEN"  # API Gateway's type for a request matching no route
REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"  # 413, 414, 431
INTEGRATION_FAILURE = "INTEGRATION_FAILURE"  # 502: the function failed
INTEGRATION_TIMEOUT = "INTEGRATION_TIMEOUT"  # 504
GatewayHeaders = dict[str, dict[str, str]]  # gateway response type -> its fixed headers
_GREEDY = re.compile(r"\{(\w+)\+\}")
_PARAMETER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class ApiRoute:
    function: LocalFunction
    method: str  # GET, POST, ... or ANY
    resource: str  # the path template, e.g. /v3/keys/{id}
    stage: str
    pattern: re.Pattern[str]
    # Lower sorts first: per segment 0 literal, 1 {param}, 2 {proxy+}; then a method before ANY.
    specificity: tuple[tuple[int, ...], bool]

    @classmethod
    def of(cls, function: LocalFunction, method: str, resource: str, stage: str) -> ApiRoute:
        parts, ranks = [], []
        for segment in resource.strip("/").split("/"):
            if greedy := _GREEDY.fullmatch(segment):
                parts.append(f"(?P<{greedy[1]}>.+)")
                ranks.append(2)
            elif parameter := _PARAMETER.fullmatch(segment):
                parts.append(f"(?P<{parameter[1]}>[^/]+)")
                ranks.append(1)
            else:
                parts.append(re.escape(segment))
                ranks.append(0)
        pattern = re.compile("/" + "/".join(parts))
        return cls(function, method.upper(), resource, stage, pattern, (tuple(ranks), method.upper() == "ANY"))

    def match(self, method: str, path: str) -> dict[str, str] | None:
        if self.method not in ("ANY", method):
            return None
        found = self.pattern.fullmatch(path)
        return found.groupdict() if found else None


def api_routes(template: Template, functions: Iterable[LocalFunction], resolver: Resolver) -> list[ApiRoute]:
    routes = []
    for function in functions:
        for event in function.events.values():
            if event.get("Type") != "Api":
                continue
            props = event["Properties"]
            routes.append(ApiRoute.of(function, props["Method"], props["Path"], _stage(template, props, resolver)))
    return sorted(routes, key=lambda route: route.specificity)


def gateway_headers(template: Template, resolver: Resolver) -> GatewayHeaders:
    """The fixed headers of the template's GatewayResponses, by response type: those given as a
    quoted literal ('600'); a mapping from the request (context.requestId) the gateway sets itself."""
    found: GatewayHeaders = {}
    for api in template.of_type("AWS::Serverless::Api").values():
        for kind, response in ((api.get("Properties") or {}).get("GatewayResponses") or {}).items():
            headers = ((response or {}).get("ResponseParameters") or {}).get("Headers") or {}
            for name, value in headers.items():
                text = str(resolver.resolve(value))
                if len(text) >= 2 and text[0] == text[-1] == "'":
                    found.setdefault(kind, {})[name] = text[1:-1]
    return found


def headers_for(headers: GatewayHeaders, kind: str, status: int) -> dict[str, str]:
    return headers.get(kind) or headers.get("DEFAULT_5XX" if status >= 500 else "DEFAULT_4XX") or {}


def _stage(template: Template, props: dict[str, Any], resolver: Resolver) -> str:
    api = props.get("RestApiId")
    if not (isinstance(api, dict) and "Ref" in api):
        return _IMPLICIT_API_STAGE
    api_props = template.resources[api["Ref"]].get("Properties") or {}
    return str(resolver.resolve(api_props.get("StageName", _IMPLICIT_API_STAGE)))


class Gateway:
    """The WSGI application: `/_local/` to the control surface, the rest to the functions."""

    def __init__(
        self,
        routes: list[ApiRoute],
        control: Callable[[Request], Response],
        openapi: Path,
        clock: Clock,
        integration_timeout: float = INTEGRATION_TIMEOUT_SECONDS,
        activity: Activity | None = None,
        headers: GatewayHeaders | None = None,
        console: Callable[[Request], Response] | None = None,
    ) -> None:
        """`activity`: told of every API call in flight (the pipeline lets them go first);
        `headers`: the template's gateway responses' fixed headers (`gateway_headers`); `console`:
        what answers under /console (the dashboard's files and its local sign-in)."""
        self.headers = headers or {}
        self._routes = routes
        self._console = console
        self._activity = activity or Activity()
        self._control = control
        self._openapi = openapi
        self._clock = clock
        self.integration_timeout = integration_timeout  # may be changed while serving (Runtime.gateway_cut)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        request = Request(environ)
        response: Iterable[bytes] = self._dispatch(request)(environ, start_response)
        return response

    def _error(self, kind: str, status: int, code: str, message: str, request_id: str | None = None) -> Response:
        """An answer the gateway makes itself, as the template's gateway response of that type."""
        response = error_response(status, code, message, request_id)
        response.headers.update(headers_for(self.headers, kind, status))
        return response

    def _dispatch(self, request: Request) -> Response:
        refusal = _over_quota(request)
        if refusal is not None:
            return self._error(REQUEST_TOO_LARGE, *refusal)
        if request.path.startswith("/_local/"):
            return self._control(request)
        if self._console is not None and (request.path == CONSOLE_PATH or request.path.startswith(f"{CONSOLE_PATH}/")):
            return self._console(request)
        if request.path == OPENAPI_PATH and request.method == "GET" and self._openapi.is_file():
            return JsonResponse(self._openapi.read_bytes())
        for route in self._routes:
            parameters = route.match(request.method, request.path)
            if parameters is not None:
                return self._invoke(route, parameters, request)
        return self._error(NO_ROUTE, 404, "not_found", "No such route.")

    def _invoke(self, route: ApiRoute, parameters: dict[str, str], request: Request) -> Response:
        request_id = str(uuid.uuid4())
        event = proxy_event(request, route, parameters, request_id, self._clock)
        try:
            with self._activity.calling():
                return http_response(route.function.invoke(event, wait=self.integration_timeout))
        except IntegrationTimeout:
            logger.error("%s did not answer %s %s in time", route.function.name, request.method, request.path)
            return self._error(INTEGRATION_TIMEOUT, 504, "internal_error", INTEGRATION_TIMEOUT_MESSAGE, request_id)
        except Exception:  # the function failed (crashed, or ran past its Timeout): a Lambda error
            logger.exception("%s failed on %s %s", route.function.name, request.method, request.path)
            return self._error(INTEGRATION_FAILURE, 502, "internal_error", FUNCTION_ERROR_MESSAGE, request_id)


def _over_quota(request: Request) -> tuple[int, str, str] | None:
    """API Gateway's answer (status, code, message) to a request past its size quotas, or None."""
    line = len(request.method) + len(request.full_path) + len(request.environ.get("SERVER_PROTOCOL", "")) + 2
    headers = sum(len(name) + len(value) for name, value in request.environ.get(RAW_HEADERS) or request.headers.items())
    if line > MAX_REQUEST_HEAD_BYTES:
        return 414, "validation_error", "The request's path and query string are too long."
    if line + headers > MAX_REQUEST_HEAD_BYTES:
        return 431, "validation_error", "The request's headers are too large."
    if (request.content_length or 0) > MAX_PAYLOAD_BYTES:
        return 413, "validation_error", "The request body is larger than 10 MB."
    # A body of unstated length (chunked) is read up to one byte past the quota, not to its end.
    request.max_content_length = MAX_PAYLOAD_BYTES + 1
    if len(request.get_data()) > MAX_PAYLOAD_BYTES:
        return 413, "validation_error", "The request body is larger than 10 MB."
    return None


def proxy_event(
    request: Request, route: ApiRoute, parameters: dict[str, str], request_id: str, clock: Clock
) -> dict[str, Any]:
    """The REST API (v1) Lambda proxy integration event for this request."""
    headers: dict[str, str] = {}
    multi_headers: dict[str, list[str]] = {}
    for name, value in request.environ.get(RAW_HEADERS) or request.headers.items():
        headers[name] = value  # the last value wins, as in API Gateway
        multi_headers.setdefault(name, []).append(value)
    query = {name: values[-1] for name, values in request.args.lists()}
    multi_query = dict(request.args.lists())
    body, is_base64 = _body(request.get_data())
    now = clock.now()
    return {
        "resource": route.resource,
        "path": request.path,
        "httpMethod": request.method,
        "headers": headers,
        "multiValueHeaders": multi_headers,
        "queryStringParameters": query or None,
        "multiValueQueryStringParameters": multi_query or None,
        "pathParameters": parameters or None,
        "stageVariables": None,
        "body": body,
        "isBase64Encoded": is_base64,
        "requestContext": {
            "accountId": ACCOUNT_ID,
            "apiId": API_ID,
            "domainName": request.host,
            "httpMethod": request.method,
            "identity": {"sourceIp": request.remote_addr, "userAgent": request.user_agent.string or None},
            "path": f"/{route.stage}{request.path}",
            "protocol": request.environ.get("SERVER_PROTOCOL", "HTTP/1.1"),
            "requestId": request_id,
            "requestTime": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "requestTimeEpoch": int(now.timestamp() * 1000),
            "resourcePath": route.resource,
            "stage": route.stage,
        },
    }


def _body(data: bytes) -> tuple[str | None, bool]:
    if not data:
        return None, False
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return base64.b64encode(data).decode(), True


def http_response(result: Any) -> Response:
    """A proxy integration result ({statusCode, headers, multiValueHeaders, body}) as HTTP."""
    if not isinstance(result, dict) or "statusCode" not in result:
        raise TypeError(f"not a Lambda proxy response: {type(result).__name__}")
    body = result.get("body") or ""
    data = base64.b64decode(body) if result.get("isBase64Encoded") else body.encode()
    # Both maps are merged; for a name in both, multiValueHeaders wins, as in API Gateway.
    multi: dict[str, list[str]] = result.get("multiValueHeaders") or {}
    single: dict[str, str] = result.get("headers") or {}
    taken = {name.lower() for name in multi}
    headers = [(name, str(value)) for name, values in multi.items() for value in values]
    headers += [(name, str(value)) for name, value in single.items() if name.lower() not in taken]
    return JsonResponse(data, status=int(result["statusCode"]), headers=headers)


class _RequestHandler(WSGIRequestHandler):
    def make_environ(self) -> WSGIEnvironment:
        environ = super().make_environ()
        # WSGI joins a repeated header into one value; API Gateway's multiValueHeaders keep them apart.
        environ[RAW_HEADERS] = list(self.headers.items())
        return environ

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The server's own refusals (before the app: a bad request line, a header past its limits)
        in the API's error body instead of http.server's HTML page."""
        request_id = str(uuid.uuid4())
        body = error_body("validation_error", message or self.responses.get(code, ("Bad request",))[0], request_id)
        self.log_error("code %d, message %s", code, message)
        self.send_response(code, message)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Request-Id", request_id)
        app = getattr(self.server, "gateway", None)
        fixed = app.headers if isinstance(app, Gateway) else {}
        for name, value in headers_for(fixed, REQUEST_TOO_LARGE, code).items():
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (204, 304):
            self.wfile.write(body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        logger.debug('"%s" %s %s', self.requestline, code, size)


class HttpServer:
    """A threaded werkzeug server on loopback; port 0 picks a free port.

    bind() takes the port first and serve(app) answers later: the functions' environment
    carries the public base URL (tracking links), which is known only once the port is.
    """

    def __init__(self, port: int) -> None:
        self._requested_port = port
        self._app: Gateway | None = None
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the gateway is not bound")
        return f"http://127.0.0.1:{self._server.server_port}"

    def bind(self) -> None:
        self._server = make_server(
            "127.0.0.1", self._requested_port, self._serve, threaded=True, request_handler=_RequestHandler
        )

    def serve(self, app: Gateway) -> None:
        if self._server is None:
            raise RuntimeError("bind() first")
        self._app = app
        self._server.gateway = app  # type: ignore[attr-defined]  # its refusals' headers (send_error)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="gateway", daemon=True
        )
        self._thread.start()

    def _serve(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if self._app is None:
            raise RuntimeError("the gateway is not serving yet")
        return self._app(environ, start_response)

    def stop(self) -> None:
        if self._server is None:
            return
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()
        self._server = self._thread = None
