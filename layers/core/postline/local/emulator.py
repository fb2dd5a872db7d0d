"""The AWS emulator: a moto server on loopback, and boto3 clients that talk to it."""

from __future__ import annotations

import logging
import threading
from typing import Any

import boto3
from moto.server import ThreadedMotoServer

from postline.local.cloudformation import ACCOUNT_ID, REGION

DEFAULT_PORT = 4566  # LocalStack's port, so `aws --endpoint-url` habits and localstack-client work
# moto accepts any credentials; real-looking names keep botocore from looking further.
_CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}


class Emulator:
    def __init__(self, port: int = DEFAULT_PORT) -> None:
        self._requested_port = port
        self._server: ThreadedMotoServer | None = None
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        # werkzeug logs every request at INFO unless told otherwise; moto makes hundreds a second.
        werkzeug_logger = logging.getLogger("werkzeug")
        if werkzeug_logger.level == logging.NOTSET:
            werkzeug_logger.setLevel(logging.WARNING)
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=self._requested_port, verbose=False)
        server.start()
        self._server = server

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
        self._clients.clear()

    @property
    def endpoint_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the emulator is not running")
        host, port = self._server.get_host_and_port()
        return f"http://{host}:{port}"

    def environment(self) -> dict[str, str]:
        """What boto3 (in handlers, the CLI, tests) needs to reach the emulator instead of AWS."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": _CREDENTIALS["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": _CREDENTIALS["aws_secret_access_key"],
            "AWS_DEFAULT_REGION": REGION,
            "AWS_REGION": REGION,  # Lambda sets both; Powertools reads AWS_REGION
            # botocore would send DynamoDB Streams calls to an account-id endpoint moto does not serve.
            "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        }

    def client(self, service: str) -> Any:
        """A client bound to the emulator explicitly, whatever the process environment says.

        Cached: botocore clients are thread-safe, and the pumps share them.
        """
        with self._lock:
            if service not in self._clients:
                session = boto3.session.Session(region_name=REGION, **_CREDENTIALS)
                self._clients[service] = session.client(service, endpoint_url=self.endpoint_url)
            return self._clients[service]

    def queue_url(self, queue_arn: str) -> str:
        """SQS addresses queues by URL; templates and schedules name them by ARN."""
        name = queue_arn.rsplit(":", 1)[-1]
        url: str = self.client("sqs").get_queue_url(QueueName=name, QueueOwnerAWSAccountId=ACCOUNT_ID)["QueueUrl"]
        return url
