"""The SMTP relay's own addresses: the Elastic IPs IP pools send from (docs/operating/deploying.md).

A Fargate task's network interface is Fargate's (no secondary addresses, no Elastic IPs), so a stack
with `RelayAddressCount` above 0 runs the relay on one EC2 host of the SMTP cluster instead, in a
public subnet, with a network interface of the stack's own:

- RelayHostInterface: the host's interface (device 0), with RelayAddressCount secondary private
  addresses; its primary address has RelayHostIp (the host's own traffic, and mail of no pool);
- RelayAddress<N> (N = 1..RelayAddressCount): an Elastic IP associated with the interface's N-th
  secondary private address (RelayAddress<N>Association); the operator allocates it to a pool
  (`postline ip allocate <its PublicIp> --allocation-id <its AllocationId>`);
- RelayHost and RelayHostService: the relay task (the same image, settings and role) in host network
  mode on that host, so it can bind the secondary addresses; RELAY_SOURCE_ADDRESSES tells it which
  private address carries which Elastic IP (`public=private,...`), so a copy the pool sends from
  `RelayAddress<N>.PublicIp` leaves from its private address and the internet gateway gives it the
  public one.

CloudFormation cannot repeat a resource by a parameter, so the generator writes MAX_RELAY_ADDRESSES of
each, the N-th under the condition HasRelayAddress<N> (RelayAddressCount >= N). Without addresses
(the default) the relay stays on Fargate behind the NAT gateway (the OutboundIp output) and none of
these resources exist.
"""

from __future__ import annotations

import copy
from typing import Any

# Secondary private addresses per interface are the instance type's: t4g.large has 12 addresses per
# interface (one primary and up to 11 secondary), enough for this many and the host's own.
MAX_RELAY_ADDRESSES = 8
INTERFACE = "RelayHostInterface"
SOURCE_ADDRESSES = "RELAY_SOURCE_ADDRESSES"  # the variable the relay reads them from (postline/config.py RelaySources)
FARGATE_ONLY = ("RelayTaskDefinition", "RelayService", "RelayScalableTarget", "RelayScaleOut", "RelayScaleIn",
                "RelayBacklogHigh", "RelayBacklogLow")  # fmt: skip


def _ref(name: str) -> dict[str, Any]:
    return {"Ref": name}


def _secondary(n: int) -> dict[str, Any]:
    """The interface's n-th (1-based) secondary private address."""
    return {"Fn::Select": [n - 1, {"Fn::GetAtt": [INTERFACE, "SecondaryPrivateIpAddresses"]}]}


def address_condition(n: int) -> str:
    return f"HasRelayAddress{n}"


def parameters() -> dict[str, Any]:
    return {
        "RelayAddressCount": {
            "Type": "Number",
            "Default": 0,
            "AllowedValues": list(range(MAX_RELAY_ADDRESSES + 1)),
            "Description": (
                "Elastic IPs of the SMTP relay for IP pools (RelayAddress1..N outputs; allocate each to a pool "
                "with `postline ip allocate`). Above 0 the relay runs on one EC2 host (RelayHostInstanceType) "
                "in a public subnet, binding them; 0 keeps it on Fargate behind the NAT gateway."
            ),
        },
        "RelayHostInstanceType": {
            "Type": "String",
            "Default": "t4g.large",
            "Description": (
                "The relay host's EC2 type (arm64, like the relay image) when RelayAddressCount is above 0: "
                "it must hold RelayAddressCount + 1 addresses on one interface."
            ),
        },
        "RelayHostImageId": {
            "Type": "AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>",
            "Default": "/aws/service/ecs/optimized-ami/amazon-linux-2023/arm64/recommended/image_id",
            "Description": "The relay host's AMI: the current ECS-optimized Amazon Linux 2023 (arm64).",
        },
    }


def conditions() -> dict[str, Any]:
    def none() -> dict[str, Any]:  # a new object each time: a shared one would be a YAML alias
        return {"Fn::Equals": [_ref("RelayAddressCount"), 0]}

    out: dict[str, Any] = {
        "HasRelayHost": {"Fn::And": [{"Condition": "HasRelayTask"}, {"Fn::Not": [none()]}]},
        "HasFargateRelay": {"Fn::And": [{"Condition": "HasRelayTask"}, none()]},
    }
    for n in range(1, MAX_RELAY_ADDRESSES + 1):
        fewer = [{"Fn::Equals": [_ref("RelayAddressCount"), m]} for m in range(n)]  # RelayAddressCount < n
        below = fewer[0] if len(fewer) == 1 else {"Fn::Or": fewer}
        out[address_condition(n)] = {"Fn::And": [{"Condition": "HasRelayHost"}, {"Fn::Not": [below]}]}
    return out


def source_addresses() -> dict[str, Any]:
    """The relay host's RELAY_SOURCE_ADDRESSES: `<Elastic IP>=<private address>` per relay address,
    comma-separated (an empty entry for each address the stack does not have)."""

    def pair(n: int) -> dict[str, Any]:
        return {"Fn::Join": ["=", [{"Fn::GetAtt": [f"RelayAddress{n}", "PublicIp"]}, _secondary(n)]]}

    rest = [{"Fn::If": [address_condition(n), pair(n), ""]} for n in range(2, MAX_RELAY_ADDRESSES + 1)]
    return {"Fn::Join": [",", [pair(1), *rest]]}  # the host has one address at least


def _eip() -> dict[str, Any]:
    return {"Type": "AWS::EC2::EIP", "DependsOn": "InternetGatewayAttachment", "Properties": {"Domain": "vpc"}}


def resources(fargate_task: dict[str, Any]) -> dict[str, Any]:
    """The relay host's resources; `fargate_task` is RelayTaskDefinition (its Environment generated),
    which the host's task definition repeats in host network mode."""
    host = "HasRelayHost"
    out: dict[str, Any] = {
        INTERFACE: {
            "Type": "AWS::EC2::NetworkInterface",
            "Condition": host,
            "Properties": {
                "Description": "Postline SMTP relay host: its own address and the IP pools' addresses",
                "SubnetId": _ref("PublicSubnetA"),
                "GroupSet": [_ref("EgressSecurityGroup"), _ref("RelayProbeSecurityGroup")],
                "SecondaryPrivateIpAddressCount": _ref("RelayAddressCount"),
            },
        },
        "RelayHostIp": {**_eip(), "Condition": host},
        "RelayHostIpAssociation": {
            "Type": "AWS::EC2::EIPAssociation",
            "Condition": host,
            "Properties": {
                "AllocationId": {"Fn::GetAtt": ["RelayHostIp", "AllocationId"]},
                "NetworkInterfaceId": _ref(INTERFACE),
                "PrivateIpAddress": {"Fn::GetAtt": [INTERFACE, "PrimaryPrivateIpAddress"]},
            },
        },
    }
    for n in range(1, MAX_RELAY_ADDRESSES + 1):
        out[f"RelayAddress{n}"] = {**_eip(), "Condition": address_condition(n)}
        out[f"RelayAddress{n}Association"] = {
            "Type": "AWS::EC2::EIPAssociation",
            "Condition": address_condition(n),
            "Properties": {
                "AllocationId": {"Fn::GetAtt": [f"RelayAddress{n}", "AllocationId"]},
                "NetworkInterfaceId": _ref(INTERFACE),
                "PrivateIpAddress": _secondary(n),
            },
        }
    out["RelayHostRole"] = {
        "Type": "AWS::IAM::Role",
        "Condition": host,
        "Properties": {
            "AssumeRolePolicyDocument": {
                "Version": "2012-10-17",
                "Statement": [
                    {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
                ],
            },
            "ManagedPolicyArns": [
                {"Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role"},
                {"Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/AmazonSSMManagedInstanceCore"},
            ],
        },
    }
    out["RelayHostProfile"] = {
        "Type": "AWS::IAM::InstanceProfile",
        "Condition": host,
        "Properties": {"Roles": [_ref("RelayHostRole")]},
    }
    out["RelayHost"] = {
        "Type": "AWS::EC2::Instance",
        "Condition": host,
        # Registers with the cluster at boot: through its Elastic IP (a public subnet has no NAT route).
        "DependsOn": "RelayHostIpAssociation",
        "Properties": {
            "ImageId": _ref("RelayHostImageId"),
            "InstanceType": _ref("RelayHostInstanceType"),
            "IamInstanceProfile": _ref("RelayHostProfile"),
            "NetworkInterfaces": [{"NetworkInterfaceId": _ref(INTERFACE), "DeviceIndex": "0"}],
            "MetadataOptions": {"HttpTokens": "required"},
            # The cluster to join; task roles in host network mode are off unless the agent is told.
            # Amazon Linux 2023's amazon-ec2-net-utils brings the interface's secondary addresses up.
            "UserData": {
                "Fn::Base64": {
                    "Fn::Sub": "#!/bin/bash\ncat >> /etc/ecs/ecs.config <<EOF\nECS_CLUSTER=${SmtpCluster}\n"
                    "ECS_ENABLE_TASK_IAM_ROLE_NETWORK_HOST=true\nEOF\n"
                }
            },
            "Tags": [{"Key": "Name", "Value": {"Fn::Sub": "${AWS::StackName}-relay-host"}}],
        },
    }
    task = copy.deepcopy(fargate_task)
    task["Condition"] = host
    properties = task["Properties"]
    properties["RequiresCompatibilities"] = ["EC2"]
    properties["NetworkMode"] = "host"  # the host's interface: its secondary addresses are bindable
    properties["Cpu"], properties["Memory"] = "1024", "4096"
    properties.pop("RuntimePlatform", None)
    (container,) = properties["ContainerDefinitions"]
    container["PortMappings"] = [{"ContainerPort": 8025, "HostPort": 8025, "Protocol": "tcp"}]
    (variable,) = (pair for pair in container["Environment"] if pair["Name"] == SOURCE_ADDRESSES)
    # Under HasRelayHost, as the resource is: the embedded runtime reads every task definition's
    # variables whatever its condition (it runs the relay in-process), and they must agree with the
    # Fargate relay's "" there. cfn-lint rightly finds the "" branch unreachable in the cloud (W1028).
    variable["Value"] = {"Fn::If": ["HasRelayHost", source_addresses(), ""]}
    task["Metadata"] = {"cfn-lint": {"config": {"ignore_checks": ["W1028"]}}}
    out["RelayHostTaskDefinition"] = task
    out["RelayHostService"] = {
        "Type": "AWS::ECS::Service",
        "Condition": host,
        "DependsOn": "RelayHost",
        "Properties": {
            "Cluster": _ref("SmtpCluster"),
            "LaunchType": "EC2",
            "DesiredCount": 1,
            "TaskDefinition": _ref("RelayHostTaskDefinition"),
            # One host, one port 8025: a deploy stops the old task before it starts the new one.
            "DeploymentConfiguration": {"MinimumHealthyPercent": 0, "MaximumPercent": 100},
        },
    }
    # The probe clients find it as they find Fargate relay tasks (relay.postline.internal): host mode
    # registers no A record itself, so the host's primary address is registered once.
    out["RelayHostProbeRegistration"] = {
        "Type": "AWS::ServiceDiscovery::Instance",
        "Condition": host,
        "Properties": {
            "ServiceId": {"Fn::GetAtt": ["RelayProbeDiscovery", "Id"]},
            "InstanceAttributes": {"AWS_INSTANCE_IPV4": {"Fn::GetAtt": [INTERFACE, "PrimaryPrivateIpAddress"]}},
        },
    }
    return out


def outputs() -> dict[str, Any]:
    out: dict[str, Any] = {
        "RelayHostIp": {
            "Condition": "HasRelayHost",
            "Description": "The relay host's own address: relayed mail of no pool (with RelayAddressCount above 0).",
            "Value": _ref("RelayHostIp"),
        }
    }
    for n in range(1, MAX_RELAY_ADDRESSES + 1):
        out[f"RelayAddress{n}"] = {
            "Condition": address_condition(n),
            "Description": f"The relay's pool address {n}: `postline ip allocate <Value> --allocation-id <its id>`.",
            "Value": _ref(f"RelayAddress{n}"),
        }
        out[f"RelayAddress{n}AllocationId"] = {
            "Condition": address_condition(n),
            "Value": {"Fn::GetAtt": [f"RelayAddress{n}", "AllocationId"]},
        }
    return out


def add_to(template: dict[str, Any]) -> None:
    """Adds the relay host to the template: its parameters, conditions, resources and outputs (the
    Fargate relay's resources are under HasFargateRelay, one of the conditions)."""
    for section, entries in (("Parameters", parameters()), ("Conditions", conditions())):
        clash = set(entries) & set(template[section])
        if clash:
            raise SystemExit(f"{', '.join(sorted(clash))}: generated by infra/relay_addresses.py; remove from the base")
        template[section].update(entries)
    for logical_id in FARGATE_ONLY:
        if template["Resources"][logical_id].get("Condition") != "HasFargateRelay":
            raise SystemExit(f"{logical_id}: the Fargate relay's resources are under Condition: HasFargateRelay")
    generated = resources(template["Resources"]["RelayTaskDefinition"])
    if clash := set(generated) & set(template["Resources"]):
        raise SystemExit(f"{', '.join(sorted(clash))}: generated by infra/relay_addresses.py; remove from the base")
    template["Resources"].update(generated)
    template["Outputs"].update(outputs())
