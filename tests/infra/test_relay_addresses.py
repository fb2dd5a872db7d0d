"""The SMTP relay's Elastic IPs (template parameter RelayAddressCount, infra/relay_addresses.py):
which resources a stack of each count holds, and that the address the relay binds for a pool address
is the private address that Elastic IP is associated with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from devtools.local.cloudformation import Resolver
from infra.relay_addresses import MAX_RELAY_ADDRESSES, SOURCE_ADDRESSES
from postline.config import RelaySources, SettingsError

ROOT = Path(__file__).resolve().parents[2]
HOST = {"RelayHostInterface", "RelayHostIp", "RelayHostIpAssociation", "RelayHostRole", "RelayHostProfile",
        "RelayHost", "RelayHostTaskDefinition", "RelayHostService", "RelayHostProbeRegistration"}  # fmt: skip
FARGATE = {"RelayTaskDefinition", "RelayService", "RelayScalableTarget", "RelayScaleOut", "RelayScaleIn",
           "RelayBacklogHigh", "RelayBacklogLow"}  # fmt: skip


class _NoResources:
    def ref(self, logical_id: str) -> str:
        raise AssertionError(f"a condition refers to {logical_id}")

    def get_att(self, logical_id: str, attribute: str) -> str:
        raise AssertionError(f"a condition refers to {logical_id}.{attribute}")


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "template.yaml").read_text())


def _stack(template: dict[str, Any], **overrides: str) -> set[str]:
    """The logical ids CloudFormation would create with these parameters (the others at their defaults)."""
    parameters = {name: str(spec.get("Default", "")) for name, spec in template["Parameters"].items()}
    resolver = Resolver({**parameters, **overrides}, _NoResources(), template["Conditions"])
    return {
        logical_id
        for logical_id, resource in template["Resources"].items()
        if "Condition" not in resource or resolver.holds(resource["Condition"])
    }


def _addresses(resources: set[str]) -> set[str]:
    return {lid for lid in resources if lid.startswith("RelayAddress") and not lid.endswith("Association")}


@pytest.mark.parametrize("count", range(MAX_RELAY_ADDRESSES + 1))
def test_a_stack_has_as_many_relay_elastic_ips_as_it_asks_for(template: dict[str, Any], count: int) -> None:
    stack = _stack(template, RelayImageUri="relay:1", RelayAddressCount=str(count))

    assert _addresses(stack) == {f"RelayAddress{n}" for n in range(1, count + 1)}
    assert {f"RelayAddress{n}Association" for n in range(1, count + 1)} <= stack
    if count:  # the relay on its host, binding them; no Fargate relay, whose interface cannot hold them
        assert stack >= HOST and not FARGATE & stack
    else:  # the Fargate relay behind the NAT gateway, as without pools
        assert stack >= FARGATE and not HOST & stack
    assert not (HOST | FARGATE) & _stack(template, RelayAddressCount=str(count))  # no relay image: no relay


def test_the_relay_count_is_offered_from_none_to_the_most_the_host_holds(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["RelayAddressCount"]
    assert parameter["Default"] == 0
    assert parameter["AllowedValues"] == list(range(MAX_RELAY_ADDRESSES + 1))


def test_each_elastic_ip_is_on_its_own_secondary_address_of_the_relay_hosts_interface(
    template: dict[str, Any],
) -> None:
    resources = template["Resources"]
    interface = resources["RelayHostInterface"]["Properties"]
    assert interface["SecondaryPrivateIpAddressCount"] == {"Ref": "RelayAddressCount"}
    secondaries = {"Fn::GetAtt": ["RelayHostInterface", "SecondaryPrivateIpAddresses"]}
    for n in range(1, MAX_RELAY_ADDRESSES + 1):
        association = resources[f"RelayAddress{n}Association"]
        assert association["Condition"] == resources[f"RelayAddress{n}"]["Condition"] == f"HasRelayAddress{n}"
        assert association["Properties"] == {
            "AllocationId": {"Fn::GetAtt": [f"RelayAddress{n}", "AllocationId"]},
            "NetworkInterfaceId": {"Ref": "RelayHostInterface"},
            "PrivateIpAddress": {"Fn::Select": [n - 1, secondaries]},
        }
        assert resources[f"RelayAddress{n}"]["Properties"] == {"Domain": "vpc"}
    # The host's own traffic (the cluster, AWS APIs, mail of no pool) has the primary address's EIP.
    own = resources["RelayHostIpAssociation"]["Properties"]
    assert own["PrivateIpAddress"] == {"Fn::GetAtt": ["RelayHostInterface", "PrimaryPrivateIpAddress"]}
    assert own["AllocationId"] == {"Fn::GetAtt": ["RelayHostIp", "AllocationId"]}


def test_the_relay_host_is_in_a_public_subnet_that_routes_to_the_internet_gateway(template: dict[str, Any]) -> None:
    """An Elastic IP translates at the internet gateway: the interface's subnet must route there."""
    resources = template["Resources"]
    interface = resources["RelayHostInterface"]["Properties"]
    tables = {
        r["Properties"]["RouteTableId"]["Ref"]
        for r in resources.values()
        if r["Type"] == "AWS::EC2::SubnetRouteTableAssociation" and r["Properties"]["SubnetId"] == interface["SubnetId"]
    }
    [table] = tables
    routes = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::EC2::Route"]
    assert [r.get("GatewayId") for r in routes if r["RouteTableId"] == {"Ref": table}] == [{"Ref": "InternetGateway"}]
    # Outbound only, but for the probe clients on the probe port (as the Fargate relay).
    assert interface["GroupSet"] == [{"Ref": "EgressSecurityGroup"}, {"Ref": "RelayProbeSecurityGroup"}]
    host = resources["RelayHost"]["Properties"]
    assert host["NetworkInterfaces"] == [{"NetworkInterfaceId": {"Ref": "RelayHostInterface"}, "DeviceIndex": "0"}]
    assert host["MetadataOptions"] == {"HttpTokens": "required"}


def test_the_relay_host_runs_the_relay_task_in_host_network_mode(template: dict[str, Any]) -> None:
    """The same image, role, settings and probe port as the Fargate relay, on the host's interface."""
    resources = template["Resources"]
    fargate, host = resources["RelayTaskDefinition"]["Properties"], resources["RelayHostTaskDefinition"]["Properties"]
    assert host["NetworkMode"] == "host" and host["RequiresCompatibilities"] == ["EC2"]
    assert host["TaskRoleArn"] == fargate["TaskRoleArn"]
    (ours,), (theirs,) = host["ContainerDefinitions"], fargate["ContainerDefinitions"]
    assert ours["Image"] == theirs["Image"] and ours["Name"] == theirs["Name"]
    variables = {pair["Name"]: pair["Value"] for pair in ours["Environment"]}
    assert variables == {pair["Name"]: pair["Value"] for pair in theirs["Environment"]} | {
        SOURCE_ADDRESSES: variables[SOURCE_ADDRESSES]
    }
    assert {pair["Name"]: pair["Value"] for pair in theirs["Environment"]}[SOURCE_ADDRESSES] == ""
    service = resources["RelayHostService"]["Properties"]
    assert service["LaunchType"] == "EC2" and service["TaskDefinition"] == {"Ref": "RelayHostTaskDefinition"}
    assert service["Cluster"] == {"Ref": "SmtpCluster"}
    user_data = resources["RelayHost"]["Properties"]["UserData"]["Fn::Base64"]["Fn::Sub"]
    assert "ECS_CLUSTER=${SmtpCluster}" in user_data
    assert "ECS_ENABLE_TASK_IAM_ROLE_NETWORK_HOST=true" in user_data  # the task's role in host network mode
    registration = resources["RelayHostProbeRegistration"]["Properties"]
    assert registration["ServiceId"] == {"Fn::GetAtt": ["RelayProbeDiscovery", "Id"]}


def test_the_relay_binds_the_private_address_each_elastic_ip_is_associated_with(template: dict[str, Any]) -> None:
    """RELAY_SOURCE_ADDRESSES pairs each RelayAddress<N>'s PublicIp with the very address its
    association names, so a pool's public address leaves from the interface address carrying it."""
    resources = template["Resources"]
    (container,) = resources["RelayHostTaskDefinition"]["Properties"]["ContainerDefinitions"]
    [value] = [pair["Value"] for pair in container["Environment"] if pair["Name"] == SOURCE_ADDRESSES]
    condition, joined, without = value["Fn::If"]
    assert (condition, without) == ("HasRelayHost", "")
    separator, entries = joined["Fn::Join"]
    assert separator == "," and len(entries) == MAX_RELAY_ADDRESSES
    for n, entry in enumerate(entries, start=1):
        if n > 1:  # the first exists wherever the host does
            entry_condition, entry, absent = entry["Fn::If"]
            assert (entry_condition, absent) == (f"HasRelayAddress{n}", "")
        [equals, (public, private)] = entry["Fn::Join"]
        assert equals == "="
        assert public == {"Fn::GetAtt": [f"RelayAddress{n}", "PublicIp"]}
        assert private == resources[f"RelayAddress{n}Association"]["Properties"]["PrivateIpAddress"]


def test_each_relay_address_and_its_allocation_id_are_outputs(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]
    for n in range(1, MAX_RELAY_ADDRESSES + 1):
        assert outputs[f"RelayAddress{n}"]["Value"] == {"Ref": f"RelayAddress{n}"}
        assert outputs[f"RelayAddress{n}AllocationId"]["Value"] == {"Fn::GetAtt": [f"RelayAddress{n}", "AllocationId"]}
        assert outputs[f"RelayAddress{n}"]["Condition"] == f"HasRelayAddress{n}"


def test_the_relays_source_addresses_parse_into_bindings() -> None:
    assert RelaySources.model_validate({SOURCE_ADDRESSES: ""}).bindings() == {}
    given = "203.0.113.7=10.40.0.21,,198.51.100.9=10.40.0.22,"  # the empty entries of absent addresses
    assert RelaySources.model_validate({SOURCE_ADDRESSES: given}).bindings() == {
        "203.0.113.7": "10.40.0.21",
        "198.51.100.9": "10.40.0.22",
    }
    with pytest.raises(SettingsError, match="public=private"):
        RelaySources.model_validate({SOURCE_ADDRESSES: "203.0.113.7"}).bindings()
