"""The one Logger, Tracer and Metrics of the service, and the meter services count through.

- `tracer` patches botocore (with requests and sqlite3: the X-Ray SDK's patch_all, not http.client,
  so urllib3 is not) when tracing is on, so every AWS call is a subsegment; it is off outside
  Lambda (no LAMBDA_TASK_ROOT) and wherever POWERTOOLS_TRACE_DISABLED is set (the embedded runtime,
  the tests). Adapters mark larger units of work with postline.shared.tracing.traced.
- `metrics` is published by `@metrics.log_metrics` on every function, as CloudWatch embedded
  metric format (EMF): JSON lines on stdout, which Lambda ships to CloudWatch Logs.
- `meter` is the Meter port's adapter (postline.shared.ports.Meter): services count through it, and
  its counts are published with the Metrics object's at the end of the invocation.

Importing this module builds the Logger: functions import it; wiring and the adapters import it
only when first used (see wiring/shared.py meter() and shared/tracing.py).
"""

from __future__ import annotations

import threading

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider

SERVICE = "postline"
NAMESPACE = "Postline"

_Dimensions = tuple[tuple[str, str], ...]


class CountingEmfProvider(AmazonCloudWatchEMFProvider):
    """Powertools' CloudWatch EMF provider that also keeps the Meter port's counts.

    An EMF object gives each dimension a single value, and the Metrics object holds one set of
    dimensions, so counts are summed per dimension set and each set is published as its own EMF
    object when the invocation's metrics are flushed. An invocation that counted nothing publishes
    nothing and warns about nothing (Powertools warns "No application metrics to publish").
    Thread-safe: the webhook fan-out counts from its pool, and the embedded runtime runs functions
    side by side in one process (a flush there may publish another function's counts with its own).
    """

    def __init__(self, *, namespace: str, service: str) -> None:
        super().__init__(namespace=namespace, service=service)
        self._counts: dict[_Dimensions, dict[str, float]] = {}
        self._counts_lock = threading.Lock()

    def count(self, name: str, value: int = 1, **dimensions: str) -> None:
        key = tuple(sorted(dimensions.items()))
        with self._counts_lock:
            counts = self._counts.setdefault(key, {})
            counts[name] = counts.get(name, 0) + value

    def flush_metrics(self, raise_on_empty_metrics: bool = False) -> None:
        with self._counts_lock:
            counted, self._counts = self._counts, {}
            for dimensions, counts in counted.items():
                blob = EphemeralMetrics(namespace=self.namespace, service=self.service)
                for name, value in dimensions:
                    blob.add_dimension(name=name, value=value)
                for name, total in counts.items():
                    blob.add_metric(name=name, unit=MetricUnit.Count, value=total)
                blob.flush_metrics()  # one JSON line; printed under the lock so lines never interleave
        if self.metric_set or (raise_on_empty_metrics and not counted):
            super().flush_metrics(raise_on_empty_metrics=raise_on_empty_metrics)


logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
meter = CountingEmfProvider(namespace=NAMESPACE, service=SERVICE)
metrics = Metrics(provider=meter)
