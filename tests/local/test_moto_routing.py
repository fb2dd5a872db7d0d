"""The emulator's moto patch (devtools/moto_patches/moto_routing.py): each request still reaches the
backend moto's own routing picks, without moto listing its package directory per request."""

from __future__ import annotations

import os
from typing import Any

import pytest
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

from devtools.moto_patches import moto_routing

HOSTS = [
    None,
    "moto_api",
    "dynamodb",
    "sqs",
    "dynamodb.eu-west-1.amazonaws.com",
    "streams.dynamodb.eu-west-1.amazonaws.com",
    "sqs.eu-west-1.amazonaws.com",
    "s3.amazonaws.com",
    "bucket.s3.eu-west-1.amazonaws.com",
    "kms.eu-west-1.amazonaws.com",
    "states.eu-west-1.amazonaws.com",
    "scheduler.eu-west-1.amazonaws.com",
    "secretsmanager.eu-west-1.amazonaws.com",
    "email.eu-west-1.amazonaws.com",
    "no-such-service.example",
]


def _answers(app: DomainDispatcherApplication) -> list[Any]:
    return [app.get_backend_for_host(host) for host in HOSTS]


def test_every_host_reaches_the_backend_moto_chooses() -> None:
    moto_routing.uninstall()
    theirs = _answers(DomainDispatcherApplication(create_backend_app))
    with moto_routing.installed():
        app = DomainDispatcherApplication(create_backend_app)
        assert _answers(app) == theirs
        assert _answers(app) == theirs  # and again, from what it kept


def test_moto_s_directory_is_listed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with moto_routing.installed():
        app = DomainDispatcherApplication(create_backend_app)
        app.get_backend_for_host("dynamodb")
        listed: list[str] = []
        listdir = os.listdir

        def listing(path: str) -> list[str]:
            listed.append(path)
            return listdir(path)

        monkeypatch.setattr(os, "listdir", listing)
        for _ in range(3):
            _answers(DomainDispatcherApplication(create_backend_app))
        assert listed == []


def test_the_patch_matches_the_pinned_moto() -> None:
    moto_routing.check_internals()  # raises when moto routes requests another way
