"""Every 5 minutes: steps deleted subaccounts' purges (subaccounts/purge_service.py) while the run
has time left; a purge cut short resumes at the next run."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from postline import wiring
from postline.wiring import subaccount_purge
from postline.workers import worker

SETTINGS = wiring.cold_start(__file__)  # what it reads (postline/deployment.py), loaded now


@worker
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    steps = subaccount_purge.purge_service().run(lambda: context.get_remaining_time_in_millis() / 1000)
    return {"steps": steps}
