"""GET /.well-known/svc/keys (no API key): the public keys that verify Svc-Signature-Ed25519."""

from aws_lambda_powertools.event_handler.api_gateway import Router

from postline import wiring
from postline.http.app import lambda_handler
from postline.signing_keys.models import SigningKeySet
from postline.wiring import signing_keys as signing_keys_root

router = Router()


@router.get(
    "/.well-known/svc/keys",
    summary="Webhook signing keys",
    description="A JSON Web Key Set (RFC 8037, OKP/Ed25519) of the keys that sign webhook deliveries, newest "
    "first. Pick the key whose kid matches the kid in Svc-Signature-Ed25519; a replaced key stays listed "
    "for 7 days.",
    tags=["Webhooks"],
)
def signing_keys() -> SigningKeySet:
    return signing_keys_root.signing_key_service().key_set()


SETTINGS = wiring.cold_start(__file__)  # what its routes read (postline/deployment.py), loaded now
handler = lambda_handler(router)
