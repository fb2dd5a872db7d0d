"""GET /.well-known/svc/egress (no API key): the static source address of relayed mail and webhook calls."""

from aws_lambda_powertools.event_handler.api_gateway import Router

from postline import wiring
from postline.egress.models import EgressAddresses
from postline.http.app import lambda_handler
from postline.wiring import egress as egress_root

router = Router()


@router.get(
    "/.well-known/svc/egress",
    summary="Egress addresses",
    description="The source addresses of all relayed mail (SMTP to recipients' MX) and webhook calls, for "
    "receivers' allowlists: the deployment's one static address (its NAT gateway's Elastic IP). A change is "
    "announced in advance. Empty with static false where there is none (the embedded runtime).",
    tags=["Webhooks"],
)
def egress() -> EgressAddresses:
    return egress_root.egress_addresses()


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
