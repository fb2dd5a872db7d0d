"""moto's JSON errors built without the XML body they replace.

Why: `JsonRESTError.__init__` calls `_RESTError.__init__`, which renders the error as an XML
document with xmltodict, then overwrites that description with the JSON one. DynamoDB's errors are
JSON errors, and moto also raises them inside its own work: while validating an update expression,
each `ADD` of an attribute the item does not have yet raises and catches a ProvidedKeyDoesNotExist.
The metrics roll-up's transactions (an `ADD` per counter) made that XML rendering ~3% of the
emulator's CPU with webhook events at 200 a second.

How: `JsonRESTError.__init__` does what the two `__init__`s leave on the error (werkzeug's
`HTTPException.__init__()`, `error_type`, `message`, the JSON `description`, the JSON content type)
without the XML it never uses. Subclasses still run their own `__init__` first, as before.

Guard: `install()` checks both `__init__`s as moto 5.2.5 writes them and raises otherwise.
"""

from __future__ import annotations

import json
from typing import Any

from moto.core.exceptions import JsonRESTError, _RESTError
from werkzeug.exceptions import HTTPException

from devtools.moto_patches.guarded import GuardedPatch, Replacement


def _init(self: JsonRESTError, error_type: str, message: str, _: str = "", **kwargs: Any) -> None:
    HTTPException.__init__(self)
    self.error_type = error_type
    self.message = message
    self.description = json.dumps({"__type": self.error_type, "message": self.message})
    self.content_type = "application/json"


_PATCH = GuardedPatch(
    "devtools/moto_patches/json_errors.py",
    [Replacement(JsonRESTError, "__init__", _init)],
    {  # what it relies on, as moto 5.2.5 writes it
        "_RESTError.__init__": (
            lambda: _RESTError.__init__,
            (
                'def __init__(self, error_type: str, message: str, _: str = "", **__: Any):',
                "super().__init__()",
                "self.error_type = error_type",
                "self.message = message",
                "self.description = unparse(response, full_document=True)",
                "self.content_type = APP_XML",
            ),
        ),
        "JsonRESTError.__init__": (
            lambda: JsonRESTError.__init__,
            (
                "super().__init__(error_type, message, **kwargs)",
                "self.description: str = json.dumps(",
                '{"__type": self.error_type, "message": self.message}',
                'self.content_type = "application/json"',
            ),
        ),
    },
    holds={
        "_RESTError's bases": lambda: _RESTError.__bases__ == (HTTPException,),
        "JsonRESTError's bases": lambda: JsonRESTError.__bases__ == (_RESTError,),
    },
)
check_internals, installed = _PATCH.check_internals, _PATCH.installed


def install() -> None:
    _PATCH.install()


def uninstall() -> None:
    _PATCH.uninstall()
