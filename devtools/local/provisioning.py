"""Creates the template's tables, queues, buckets and secrets in the emulator.

Everything is read from template.yaml, never copied: what runs locally is what deploys.
Resource types the emulator does not hold (layers, the API, IAM policies) are skipped. Functions
are not created in the emulator (the runtime invokes them in-process) but get their ARNs, so a
state machine or a schedule can name them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from devtools.local.cloudformation import (
    ACCOUNT_ID,
    REGION,
    Resolver,
    Template,
    TemplateError,
    dependency_order,
    physical_name,
    scalar,
)

logger = logging.getLogger(__name__)
ClientFactory = Callable[[str], Any]


@dataclass(frozen=True)
class Deployed:
    """What a logical id became: the value `Ref` gives and the attributes `Fn::GetAtt` gives."""

    ref: str
    attributes: dict[str, str] = field(default_factory=dict)


class Stack:
    """The emulated resources by logical id; answers Ref and GetAtt for the Resolver."""

    def __init__(self) -> None:
        self._deployed: dict[str, Deployed] = {}

    def add(self, logical_id: str, deployed: Deployed) -> None:
        self._deployed[logical_id] = deployed

    def ref(self, logical_id: str) -> str:
        return self._get(logical_id).ref

    def get_att(self, logical_id: str, attribute: str) -> str:
        attributes = self._get(logical_id).attributes
        if attribute not in attributes:
            raise TemplateError(f"{logical_id} has no attribute {attribute} locally")
        return attributes[attribute]

    def deployed(self) -> dict[str, Deployed]:
        return dict(self._deployed)

    def _get(self, logical_id: str) -> Deployed:
        if logical_id not in self._deployed:
            raise TemplateError(f"{logical_id} is not a parameter or a resource the local runtime creates")
        return self._deployed[logical_id]


def deploy(
    template: Template,
    parameters: Mapping[str, str],
    clients: ClientFactory,
    existing: Mapping[str, Deployed] | None = None,
) -> Stack:
    """Creates the template's resources, except those `existing` says a restored emulator holds
    (a stack update that only adds: a resource whose properties changed keeps its old ones)."""
    stack = Stack()
    existing = existing or {}
    resolver = Resolver(parameters, stack, template.conditions)
    emulated = {}
    for logical_id, resource in template.resources.items():
        if resource.get("Type") == FUNCTION:
            name = physical_name(logical_id)
            stack.add(logical_id, Deployed(name, {"Arn": f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{name}"}))
        elif resource.get("Type") == STATE_MACHINE:
            emulated[logical_id] = _with_definition(template, resource)
        elif resource.get("Type") in _CREATORS:
            emulated[logical_id] = resource
        else:
            logger.debug("%s (%s) is not an emulator resource; skipped", logical_id, resource.get("Type"))
    for logical_id in dependency_order(emulated):
        if logical_id in existing:
            stack.add(logical_id, existing[logical_id])
            continue
        resource = emulated[logical_id]
        properties = resolver.resolve(resource.get("Properties") or {})
        stack.add(logical_id, _CREATORS[resource["Type"]](clients, logical_id, properties))
    return stack


FUNCTION = "AWS::Serverless::Function"
STATE_MACHINE = "AWS::Serverless::StateMachine"


def _with_definition(template: Template, resource: dict[str, Any]) -> dict[str, Any]:
    """A state machine's DefinitionUri read into Definition, as `sam build` would package it."""
    properties = dict(resource.get("Properties") or {})
    uri = properties.pop("DefinitionUri", None)
    if isinstance(uri, str):
        properties["Definition"] = json.loads((template.root / uri).read_text())
    return {**resource, "Properties": properties}


def _table(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    dynamodb = clients("dynamodb")
    name = props.get("TableName") or physical_name(logical_id)
    request: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": props["AttributeDefinitions"],
        "KeySchema": props["KeySchema"],
        "BillingMode": props.get("BillingMode", "PROVISIONED"),
    }
    if "ProvisionedThroughput" in props:
        request["ProvisionedThroughput"] = props["ProvisionedThroughput"]
    index_fields = ("IndexName", "KeySchema", "Projection", "ProvisionedThroughput")
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if props.get(kind):
            request[kind] = [{k: v for k, v in index.items() if k in index_fields} for index in props[kind]]
    if "StreamSpecification" in props:
        view = props["StreamSpecification"]["StreamViewType"]
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
    description = dynamodb.create_table(**request)["TableDescription"]
    ttl = props.get("TimeToLiveSpecification") or {}
    if ttl.get("Enabled"):
        dynamodb.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]}
        )
    attributes = {"Arn": description["TableArn"]}
    if "LatestStreamArn" in description:
        attributes["StreamArn"] = description["LatestStreamArn"]
    return Deployed(name, attributes)


# CloudFormation properties of AWS::SQS::Queue that are SQS queue attributes of the same name.
_QUEUE_ATTRIBUTES = {
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "DelaySeconds",
    "FifoQueue",
    "FifoThroughputLimit",
    "KmsDataKeyReusePeriodSeconds",
    "KmsMasterKeyId",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "ReceiveMessageWaitTimeSeconds",
    "RedriveAllowPolicy",
    "RedrivePolicy",
    "SqsManagedSseEnabled",
    "VisibilityTimeout",
}


def _queue(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    sqs = clients("sqs")
    fifo = scalar(props.get("FifoQueue")) == "true"
    name = props.get("QueueName") or physical_name(logical_id) + (".fifo" if fifo else "")
    attributes = {
        key: json.dumps(value) if isinstance(value, dict) else scalar(value)
        for key, value in props.items()
        if key in _QUEUE_ATTRIBUTES
    }
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    # Ref of a queue is its URL in CloudFormation, which is also what boto3 wants.
    return Deployed(url, {"Arn": arn, "QueueName": name, "QueueUrl": url})


def _topic(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    """A topic, for the ARNs functions are given (an IP pool's SES configuration set reports to the
    feedback topic); nothing subscribes locally, where SES does not send."""
    name = props.get("TopicName") or physical_name(logical_id)
    arn = clients("sns").create_topic(Name=name)["TopicArn"]
    return Deployed(arn, {"TopicArn": arn, "TopicName": name})


def _bucket(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    name = props.get("BucketName") or physical_name(logical_id).lower()
    clients("s3").create_bucket(Bucket=name)
    if rules := (props.get("LifecycleConfiguration") or {}).get("Rules"):
        # The emulator expires objects by these rules (devtools/moto_patches/ttl_sweep.py).
        clients("s3").put_bucket_lifecycle_configuration(
            Bucket=name, LifecycleConfiguration={"Rules": [_lifecycle_rule(rule) for rule in rules]}
        )
    return Deployed(name, {"Arn": f"arn:aws:s3:::{name}", "DomainName": f"{name}.s3.amazonaws.com"})


def _lifecycle_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """A template's lifecycle rule (CloudFormation's names) as PutBucketLifecycleConfiguration takes
    it: the fields the template uses (Id, Status, Prefix, ExpirationInDays,
    AbortIncompleteMultipartUpload)."""
    api: dict[str, Any] = {"Status": rule["Status"], "Filter": {"Prefix": rule.get("Prefix", "")}}
    if "Id" in rule:
        api["ID"] = rule["Id"]
    if "ExpirationInDays" in rule:
        api["Expiration"] = {"Days": int(rule["ExpirationInDays"])}
    if "AbortIncompleteMultipartUpload" in rule:
        days = int(rule["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"])
        api["AbortIncompleteMultipartUpload"] = {"DaysAfterInitiation": days}
    return api


# GenerateSecretString options that GetRandomPassword takes under the same names.
_PASSWORD_OPTIONS = {
    "ExcludeCharacters",
    "ExcludeLowercase",
    "ExcludeNumbers",
    "ExcludePunctuation",
    "ExcludeUppercase",
    "IncludeSpace",
    "PasswordLength",
    "RequireEachIncludedType",
}


def _secret(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    secretsmanager = clients("secretsmanager")
    name = props.get("Name") or physical_name(logical_id)
    value = props.get("SecretString")
    if value is None:
        generate = props.get("GenerateSecretString") or {}
        options = {k: v for k, v in generate.items() if k in _PASSWORD_OPTIONS}
        password = secretsmanager.get_random_password(**options)["RandomPassword"]
        if "SecretStringTemplate" in generate:
            document = json.loads(generate["SecretStringTemplate"])
            document[generate["GenerateStringKey"]] = password
            password = json.dumps(document)
        value = password
    arn = secretsmanager.create_secret(Name=name, SecretString=value)["ARN"]
    # Ref of a secret is its ARN in CloudFormation; Secrets Manager accepts it as SecretId.
    return Deployed(arn, {"Id": arn})


def _kms_key(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    request: dict[str, Any] = {"Description": props.get("Description", logical_id)}
    for name in ("KeySpec", "KeyUsage"):
        if name in props:
            request[name] = props[name]
    metadata = clients("kms").create_key(**request)["KeyMetadata"]
    # Ref of a key is its id in CloudFormation; KMS accepts it as KeyId.
    return Deployed(metadata["KeyId"], {"Arn": metadata["Arn"], "KeyId": metadata["KeyId"]})


def _role(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    name = props.get("RoleName") or physical_name(logical_id)
    role = clients("iam").create_role(
        RoleName=name, AssumeRolePolicyDocument=json.dumps(props["AssumeRolePolicyDocument"])
    )["Role"]
    return Deployed(name, {"Arn": role["Arn"], "RoleId": role["RoleId"]})


def _state_machine(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    name = props.get("Name") or physical_name(logical_id)
    text = json.dumps(props["Definition"])
    for variable, value in (props.get("DefinitionSubstitutions") or {}).items():
        text = text.replace("${" + variable + "}", scalar(value))
    # SAM creates the execution role from Policies; the emulator only wants a well-formed ARN.
    role = props.get("Role") or f"arn:aws:iam::{ACCOUNT_ID}:role/{name}-role"
    arn = clients("stepfunctions").create_state_machine(
        name=name, definition=text, roleArn=role, type=props.get("Type", "STANDARD")
    )["stateMachineArn"]
    # Ref of a state machine is its ARN in CloudFormation.
    return Deployed(arn, {"Arn": arn, "Name": name})


def _no_elastic_ip(clients: ClientFactory, logical_id: str, props: dict[str, Any]) -> Deployed:
    """An Elastic IP is the cloud's static egress; this machine has none: its Ref is "" (the functions'
    EGRESS_IP, so GET /.well-known/svc/egress says there is no static address here)."""
    return Deployed("", {"AllocationId": "", "PublicIp": ""})


_CREATORS: dict[str, Callable[[ClientFactory, str, dict[str, Any]], Deployed]] = {
    STATE_MACHINE: _state_machine,
    "AWS::DynamoDB::Table": _table,
    "AWS::SQS::Queue": _queue,
    "AWS::S3::Bucket": _bucket,
    "AWS::SNS::Topic": _topic,
    "AWS::SecretsManager::Secret": _secret,
    "AWS::KMS::Key": _kms_key,
    "AWS::IAM::Role": _role,
    "AWS::EC2::EIP": _no_elastic_ip,
}
