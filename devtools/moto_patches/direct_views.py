"""moto's server hands an AWS JSON-protocol request to its handler without Flask's request cycle.

Why: every request moto serves goes through a Flask app per service: a request context pushed and
popped, the URL matched, the view called, flask_cors's after-request hook, the response finalized.
With webhook events at 200 a second that cycle, around moto's own `convert_to_flask_response`
view, was 12-18% of the emulator's busy time (Flask.__call__ 72.6% of it, moto's view 60.2%, the
handler's dispatch 54.8%), and nearly every request the runtime makes is a JSON-protocol call
(DynamoDB, its streams, SQS, KMS, Step Functions, Secrets Manager: a POST to `/` named by its
X-Amz-Target header).

How: `DomainDispatcherApplication.__call__` picks the service's app as before (`get_application`).
For a POST to `/` with an X-Amz-Target header and no Origin header, it matches the path with the
app's own URL map (once per app and path, as Flask would), and when the view is moto's
`convert_to_flask_response` and the app has no request hooks but flask_cors's, it does what that
view does: the app's request class (moto's BackendRequest) from the environ, moto's request
recorder, the handler with the raw URL and the headers, a botocore ClientError as a 400 with its
message; then answers with Flask's Response, as the view does, plus the `Access-Control-Allow-Origin: *`
flask_cors adds to an answer to a request without an Origin. Anything else (other paths and
methods, an Origin header, another view, an app with other hooks) goes through Flask unchanged.

Guard: `install()` checks that moto's dispatcher and view still read as 5.2.5 writes them and that
its apps still get flask_cors's default hook; it raises otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from botocore.exceptions import ClientError
from flask import Response
from moto.core.utils import convert_to_flask_response
from moto.moto_api import recorder
from moto.moto_server import werkzeug_app
from moto.moto_server.werkzeug_app import DomainDispatcherApplication
from werkzeug.exceptions import HTTPException

from devtools.moto_patches.guarded import GuardedPatch, Replacement

_CORS_HEADER = ("Access-Control-Allow-Origin", "*")  # flask_cors's answer to a request without an Origin
_views: dict[tuple[int, str], convert_to_flask_response | None] = {}  # (id of app, path) -> its view, or None
_apps: dict[int, Any] = {}  # id -> app: keeps the apps the views were found in alive, so ids stay theirs
_lock = threading.Lock()


def _hooks_are_cors_only(app: Any) -> bool:
    after = [hook for hooks in app.after_request_funcs.values() for hook in hooks]
    before = [hook for hooks in app.before_request_funcs.values() for hook in hooks]
    others = (app.teardown_request_funcs, app.url_value_preprocessors, app.url_default_functions)
    return (
        not before
        and len(after) == 1
        and after[0].__name__ == "cors_after_request"
        and not any(hooks for group in others for hooks in group.values())
    )


def _view(app: Any, environ: dict[str, Any]) -> convert_to_flask_response | None:
    """The view Flask would call for this request, when it is moto's and may be called directly."""
    key = (id(app), environ.get("PATH_INFO", ""))
    with _lock:
        if key in _views:
            return _views[key]
    found: convert_to_flask_response | None = None
    if _hooks_are_cors_only(app):
        try:
            endpoint, arguments = app.url_map.bind_to_environ(environ).match()
        except HTTPException:  # Flask would answer it: not for this path
            endpoint, arguments = None, None
        view = app.view_functions.get(endpoint) if endpoint is not None else None
        if not arguments and isinstance(view, convert_to_flask_response):
            found = view
    with _lock:
        _apps[id(app)] = app
        _views[key] = found
    return found


def _direct(environ: dict[str, Any]) -> bool:
    return (
        environ.get("REQUEST_METHOD") == "POST"
        and environ.get("PATH_INFO") == "/"
        and "HTTP_X_AMZ_TARGET" in environ
        and "HTTP_ORIGIN" not in environ
    )


def _call(self: DomainDispatcherApplication, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
    app = self.get_application(environ)
    view = _view(app, environ) if _direct(environ) else None
    if view is None:
        return app(environ, start_response)
    return _answer(app, view, environ, start_response)


def _answer(app: Any, view: convert_to_flask_response, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
    """What moto's view and Flask answer (moto.core.utils.convert_to_flask_response.__call__)."""
    request = app.request_class(environ)
    try:
        recorder._record_request(request)
        result = view.callback(request, request.raw_url, dict(request.headers))
    except ClientError as exc:
        result = 400, {}, exc.response["Error"]["Message"]
    if len(result) == 3:
        status, headers, content = result
    else:
        status, headers, content = 200, {}, result
    response = Response(response=content, status=status, headers=headers)
    response.headers.setdefault(*_CORS_HEADER)
    return response(environ, start_response)


def _forget() -> None:
    with _lock:
        _views.clear()
        _apps.clear()


_CALL = Replacement(DomainDispatcherApplication, "__call__", _call)
_PATCH = GuardedPatch(
    "devtools/moto_patches/direct_views.py",
    [_CALL],
    {  # as moto 5.2.5 writes them
        "DomainDispatcherApplication.__call__": (
            lambda: DomainDispatcherApplication.__call__,
            ("backend_app = self.get_application(environ)", "return backend_app(environ, start_response)"),
        ),
        "convert_to_flask_response.__call__": (
            lambda: convert_to_flask_response.__call__,
            (
                "request = normalize_request(cast(Request, flask_request))",
                "recorder._record_request(request)",
                "result = self.callback(request, request.raw_url, dict(request.headers))",
                "except ClientError as exc:",
                'result = 400, {}, exc.response["Error"]["Message"]',
                "if len(result) == 3:",
                "response = Response(response=content, status=status, headers=headers)",
                'if request.method == "HEAD" and "content-length" in headers:',
            ),
        ),
        "create_backend_app": (
            lambda: werkzeug_app.create_backend_app,
            ("backend_app.request_class = BackendRequest", "if not DISABLE_GLOBAL_CORS:", "CORS(backend_app)"),
        ),
    },
    on_uninstall=_forget,
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
