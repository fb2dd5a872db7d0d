from postline.egress.models import egress_addresses


def test_a_deployment_with_an_elastic_ip_announces_it_as_static() -> None:
    view = egress_addresses("203.0.113.7")
    assert view.model_dump() == {"ipv4": ["203.0.113.7"], "static": True, "used_for": ["smtp_relay", "webhooks"]}


def test_without_one_nothing_is_promised() -> None:
    assert egress_addresses("").model_dump() == {"ipv4": [], "static": False, "used_for": ["smtp_relay", "webhooks"]}
