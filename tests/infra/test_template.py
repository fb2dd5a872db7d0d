"""template.yaml agrees with the route table and the code it wires."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from infra.generate import VALUES, load_api_module, placeholder_environment, render_openapi, render_template
from postline import wiring
from postline.config import GROUPS, SettingsError
from postline.deployment import (
    POLICY_SETTINGS,
    RELAY_SETTINGS,
    SMTP_SETTINGS,
    WORKER_SETTINGS,
    function_settings,
    variables,
)
from postline.keys.access import Access
from postline.routes import ROUTES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "template.yaml").read_text())


def _functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: resource["Properties"]
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
    }


def test_the_committed_files_are_what_the_code_generates() -> None:
    assert (ROOT / "template.yaml").read_text() == render_template()
    assert (ROOT / "infra" / "openapi.json").read_text() == render_openapi()


def test_every_route_is_its_own_function_with_its_own_api_event(template: dict[str, Any]) -> None:
    functions = _functions(template)
    for route in ROUTES:
        properties = functions[route.function_id]
        event = properties["Events"]["Api"]["Properties"]
        assert (event["Method"], event["Path"]) == (route.method, route.path)
        assert properties["Handler"] == f"{route.module}.handler"
    api_events = [
        (e["Properties"]["Method"], e["Properties"]["Path"])
        for f in functions.values()
        for e in (f.get("Events") or {}).values()  # a workflow task has no event of its own
        if e["Type"] == "Api"
    ]
    assert len(api_events) == len(set(api_events)) == len(ROUTES)


def test_every_function_has_a_module_with_its_handler(
    template: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each module checks its settings as it loads: what a worker's earlier tests left in the
    # environment stays, the rest comes from the template's defaults (and goes after the test).
    for name, value in placeholder_environment().items():
        if name not in os.environ:
            monkeypatch.setenv(name, value)
    try:
        for properties in _functions(template).values():
            module_name, attribute = properties["Handler"].split(".")
            path = ROOT / properties["CodeUri"] / f"{module_name}.py"
            assert path.is_file()
            spec = importlib.util.spec_from_file_location(f"check_{path.parent.name}_{module_name}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            assert callable(getattr(module, attribute))
    finally:
        wiring.reset()  # no settings read from the placeholders outlive the test


def test_every_function_has_a_narrow_policy_and_no_shared_role(template: dict[str, Any]) -> None:
    for name, properties in _functions(template).items():
        assert "Policies" in properties, name  # explicit, even when empty (a page that touches nothing)
        assert "Role" not in properties, name
        text = yaml.safe_dump(properties["Policies"])
        assert "'*'" not in text and "AdministratorAccess" not in text, name


def test_read_routes_cannot_write_resources(template: dict[str, Any]) -> None:
    functions = _functions(template)
    for route in ROUTES:
        # Tracking links are GETs by nature (a pixel, a click) and record opens and clicks.
        if route.method == "GET" and route.access is not Access.PUBLIC:
            assert "DynamoDBCrudPolicy" not in yaml.safe_dump(functions[route.function_id]["Policies"]), route.name


def test_each_function_gets_exactly_the_variables_of_its_settings(template: dict[str, Any]) -> None:
    shared = set(template["Globals"]["Function"]["Environment"]["Variables"])
    assert shared == {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_LOG_LEVEL"}  # nothing every function gets
    functions = _functions(template)
    for name, properties in functions.items():
        module_file = str(ROOT / properties["CodeUri"] / properties["Handler"].rpartition(".")[0])
        given = set(properties["Environment"]["Variables"])
        assert given == set(variables(function_settings(module_file))), name
    # Fewer than all: a route that reads keys has no queue, and the dispatcher no key pepper.
    assert "SEND_QUEUE_URL" not in functions["ListKeysFunction"]["Environment"]["Variables"]
    assert "KEY_HASH_SECRET_ID" not in functions["DispatcherFunction"]["Environment"]["Variables"]


def test_every_settings_variable_has_a_value_and_every_group_a_reader() -> None:
    declared = {group for groups in WORKER_SETTINGS.values() for group in groups}
    declared |= {group for groups in POLICY_SETTINGS.values() for group in groups}
    declared |= set(RELAY_SETTINGS) | set(SMTP_SETTINGS)  # the Fargate tasks read settings too
    assert set(GROUPS) == declared
    assert {name for group in GROUPS for name in group.variables()} == set(VALUES)


def test_a_missing_variable_fails_the_cold_start_with_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in placeholder_environment().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("SEND_QUEUE_URL")
    wiring.reset()
    try:
        with pytest.raises(SettingsError, match="SendQueue settings: SEND_QUEUE_URL missing"):
            load_api_module("sending")
        monkeypatch.setenv("SEND_QUEUE_URL", "https://sqs.example/q")
        monkeypatch.setenv("QUEUE_MAX_DELAY_SECONDS", "901")
        wiring.reset()
        with pytest.raises(SettingsError, match="QUEUE_MAX_DELAY_SECONDS"):
            load_api_module("sending")
        monkeypatch.delenv("SEND_QUEUE_URL")
        load_api_module("keys")  # a function without the send queue starts without it
    finally:
        monkeypatch.undo()
        wiring.reset()


def test_every_queue_has_a_dead_letter_queue(template: dict[str, Any]) -> None:
    queues = {n: r for n, r in template["Resources"].items() if r["Type"] == "AWS::SQS::Queue"}
    dead_letter = {
        r["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        for r in queues.values()
        if "RedrivePolicy" in r.get("Properties", {})
    }
    for name in set(queues) - dead_letter:
        assert "RedrivePolicy" in queues[name].get("Properties", {}), f"{name} has no DLQ"


def test_the_dispatcher_fails_what_cannot_start_before_the_send_queue_gives_up(template: dict[str, Any]) -> None:
    """The dispatcher's last receive comes before the dead-letter queue's, so no accepted message
    waits there without a final event (postline/delivery/service.py)."""
    from postline.delivery.service import LAST_RECEIVE

    redrive = template["Resources"]["SendQueue"]["Properties"]["RedrivePolicy"]
    assert int(redrive["maxReceiveCount"]) > LAST_RECEIVE


def test_the_relay_queue_outlasts_the_lease_and_fails_what_cannot_start_before_its_dead_letter_queue(
    template: dict[str, Any],
) -> None:
    """A relay task that died mid-job has lost its lease when SQS gives the job back (so the
    redelivery delivers instead of waiting again), and the relay fails what cannot start before
    the dead-letter queue, as the dispatcher Lambda does."""
    from postline.delivery.service import LAST_RECEIVE, LEASE_SECONDS

    relay = template["Resources"]["RelayQueue"]["Properties"]
    assert int(relay["VisibilityTimeout"]) > LEASE_SECONDS
    assert int(relay["RedrivePolicy"]["maxReceiveCount"]) > LAST_RECEIVE


def test_each_smtp_task_gets_exactly_the_variables_of_its_settings(template: dict[str, Any]) -> None:
    from postline.deployment import RELAY_SETTINGS, SMTP_SETTINGS

    for logical_id, groups in {
        "RelayTaskDefinition": RELAY_SETTINGS,
        "SubmissionTaskDefinition": SMTP_SETTINGS,
    }.items():
        (container,) = template["Resources"][logical_id]["Properties"]["ContainerDefinitions"]
        assert {entry["Name"] for entry in container["Environment"]} == set(variables(groups)), logical_id


def test_the_nlb_forwards_587_and_465_to_the_submission_task_with_client_addresses_kept(
    template: dict[str, Any],
) -> None:
    """The key's IP allowlist and the failed-AUTH limit judge the client's address: the NLB keeps it."""
    from postline.tasks.submission import parse_args

    resources = template["Resources"]
    defaults = parse_args(["--cert", "c", "--key", "k"])
    service = resources["SubmissionService"]["Properties"]
    forwarded = {}
    for resource in resources.values():
        if resource["Type"] != "AWS::ElasticLoadBalancingV2::Listener":
            continue
        listener = resource["Properties"]
        assert listener["LoadBalancerArn"] == {"Ref": "SubmissionLoadBalancer"}
        assert listener["Protocol"] == "TCP"  # TLS is the task's (STARTTLS cannot end at a load balancer)
        [action] = listener["DefaultActions"]
        target_group = resources[action["TargetGroupArn"]["Ref"]]["Properties"]
        assert {"Key": "preserve_client_ip.enabled", "Value": "true"} in target_group["TargetGroupAttributes"]
        forwarded[listener["Port"]] = target_group["Port"]
        assert {
            "ContainerName": "submission",
            "ContainerPort": target_group["Port"],
            "TargetGroupArn": action["TargetGroupArn"],
        } in service["LoadBalancers"]
    assert forwarded == {587: defaults.port, 465: defaults.tls_port} == {587: 587, 465: 465}
    (container,) = resources["SubmissionTaskDefinition"]["Properties"]["ContainerDefinitions"]
    assert {m["ContainerPort"] for m in container["PortMappings"]} == {587, 465}
    assert resources["SubmissionLoadBalancer"]["Properties"]["Type"] == "network"


def test_relay_tasks_scale_on_the_relay_queues_depth(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    target = resources["RelayScalableTarget"]["Properties"]
    assert target["ResourceId"] == {"Fn::Sub": "service/${SmtpCluster}/${RelayService.Name}"}
    assert target["ScalableDimension"] == "ecs:service:DesiredCount" and target["MinCapacity"] >= 1
    assert target["MaxCapacity"] == {"Ref": "RelayMaxTasks"}
    directions = {}
    for name in ("RelayBacklogHigh", "RelayBacklogLow"):
        alarm = resources[name]["Properties"]
        assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/SQS", "ApproximateNumberOfMessagesVisible")
        assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["RelayQueue", "QueueName"]}}]
        [action] = alarm["AlarmActions"]
        policy = resources[action["Ref"]]["Properties"]
        assert policy["ScalingTargetId"] == {"Ref": "RelayScalableTarget"}
        steps = policy["StepScalingPolicyConfiguration"]["StepAdjustments"]
        directions[name] = {step["ScalingAdjustment"] > 0 for step in steps}
    assert directions == {"RelayBacklogHigh": {True}, "RelayBacklogLow": {False}}
    high, low = resources["RelayBacklogHigh"]["Properties"], resources["RelayBacklogLow"]["Properties"]
    assert high["ComparisonOperator"] == "GreaterThanThreshold" and low["ComparisonOperator"] == "LessThanThreshold"
    assert low["Threshold"] < high["Threshold"]


def test_relayed_mail_and_webhooks_leave_from_the_one_elastic_ip(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    private = {"PrivateSubnetA", "PrivateSubnetB"}
    # The private subnets' only default route is the NAT gateway, whose address is the EIP output.
    routes = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::EC2::Route"]
    private_routes = [r for r in routes if r["RouteTableId"] == {"Ref": "PrivateRouteTable"}]
    assert [r.get("NatGatewayId") for r in private_routes] == [{"Ref": "NatGateway"}]
    assert resources["NatGateway"]["Properties"]["AllocationId"] == {"Fn::GetAtt": ["EgressIp", "AllocationId"]}
    assert template["Outputs"]["OutboundIp"]["Value"] == {"Ref": "EgressIp"}
    associated = {
        r["Properties"]["SubnetId"]["Ref"]
        for r in resources.values()
        if r["Type"] == "AWS::EC2::SubnetRouteTableAssociation"
        and r["Properties"]["RouteTableId"] == {"Ref": "PrivateRouteTable"}
    }
    assert associated == private
    # The relay service and every function that makes webhook calls run in those subnets only.
    relay = resources["RelayService"]["Properties"]["NetworkConfiguration"]["AwsvpcConfiguration"]
    assert {s["Ref"] for s in relay["Subnets"]} == private and relay["AssignPublicIp"] == "DISABLED"
    for name, properties in _functions(template).items():
        if properties["CodeUri"] == "functions/workers/" and properties["Handler"].startswith("webhook_"):
            assert {s["Ref"] for s in properties["VpcConfig"]["SubnetIds"]} == private, name
    # ...and GET /.well-known/svc/egress tells that address: the same resource as the output.
    egress = _functions(template)["EgressFunction"]["Environment"]["Variables"]["EGRESS_IP"]
    assert egress == template["Outputs"]["OutboundIp"]["Value"]


def test_the_daily_tls_reports_job_goes_to_the_relay_queue(template: dict[str, Any]) -> None:
    schedule = template["Resources"]["TlsReportSchedule"]
    target = schedule["Properties"]["Target"]
    assert target["Arn"] == {"Fn::GetAtt": ["RelayQueue", "Arn"]}
    assert json.loads(target["Input"])["kind"] == "tls_reports"
    role = template["Resources"][target["RoleArn"]["Fn::GetAtt"][0]]["Properties"]
    [statement] = role["Policies"][0]["PolicyDocument"]["Statement"]
    assert statement["Action"] == "sqs:SendMessage" and statement["Resource"] == target["Arn"]


def test_mailbox_probes_reach_the_relay_tasks_probe_endpoint_inside_the_vpc(template: dict[str, Any]) -> None:
    """A Lambda cannot open port 25: the functions that probe run in the private subnets and ask the
    relay task's endpoint (postline/relay/probes.py), found through Cloud Map, admitted by group."""
    from postline.relay.probes import PROBE_PORT

    resources = template["Resources"]
    namespace = resources["InternalNamespace"]["Properties"]["Name"]
    discovery = resources["RelayProbeDiscovery"]["Properties"]
    assert discovery["DnsConfig"]["NamespaceId"] == {"Fn::GetAtt": ["InternalNamespace", "Id"]}
    default = template["Parameters"]["RelayProbeAddress"]["Default"]
    assert default == f"{discovery['Name']}.{namespace}:{PROBE_PORT}"
    relay = resources["RelayService"]["Properties"]
    assert relay["ServiceRegistries"] == [{"RegistryArn": {"Fn::GetAtt": ["RelayProbeDiscovery", "Arn"]}}]
    assert {"Ref": "RelayProbeSecurityGroup"} in relay["NetworkConfiguration"]["AwsvpcConfiguration"]["SecurityGroups"]
    (container,) = resources["RelayTaskDefinition"]["Properties"]["ContainerDefinitions"]
    assert container["PortMappings"] == [{"ContainerPort": PROBE_PORT, "Protocol": "tcp"}]
    [ingress] = resources["RelayProbeSecurityGroup"]["Properties"]["SecurityGroupIngress"]
    assert (ingress["FromPort"], ingress["ToPort"]) == (PROBE_PORT, PROBE_PORT)
    assert ingress["SourceSecurityGroupId"] == {"Ref": "ProbeClientSecurityGroup"}
    functions = _functions(template)
    for name in ("ValidateAddressFunction", "BulkVerificationFunction"):
        vpc = functions[name]["VpcConfig"]
        assert {s["Ref"] for s in vpc["SubnetIds"]} == {"PrivateSubnetA", "PrivateSubnetB"}, name
        assert vpc["SecurityGroupIds"] == [{"Ref": "ProbeClientSecurityGroup"}], name
        assert functions[name]["Environment"]["Variables"]["RELAY_PROBE_ADDRESS"] == {"Ref": "RelayProbeAddress"}
    assert template["Parameters"]["VerifySmtpProbe"]["Default"] == "relay"


def test_every_stream_consumer_alarms_on_its_lag_before_the_events_querys_allowance(template: dict[str, Any]) -> None:
    """The events query trusts the counters for hours that ended SETTLE ago (events/counts.py): each
    stream consumer's IteratorAge alarm must fire, evaluation time included, before its lag reaches that."""
    from postline.events.counts import SETTLE

    consumers = {
        name
        for name, properties in _functions(template).items()
        if any(event["Type"] in ("DynamoDB", "Kinesis") for event in (properties.get("Events") or {}).values())
    }
    assert {"MetricsRollupFunction", "RecipientActivityFunction", "WebhookFanoutFunction"} <= consumers
    alarms = {
        resource["Properties"]["Dimensions"][0]["Value"]["Ref"]: resource["Properties"]
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::CloudWatch::Alarm" and resource["Properties"]["MetricName"] == "IteratorAge"
    }
    assert set(alarms) == consumers
    allowance_ms = SETTLE.total_seconds() * 1000
    for alarm in alarms.values():
        assert (alarm["Namespace"], alarm["Statistic"], alarm["ComparisonOperator"]) == (
            "AWS/Lambda", "Maximum", "GreaterThanThreshold"
        )  # fmt: skip
        assert 0 < alarm["Threshold"] + alarm["Period"] * alarm["EvaluationPeriods"] * 1000 < allowance_ms
        assert alarm["AlarmActions"] == [{"Ref": "OperationsTopic"}]
    assert template["Resources"]["OperationsTopic"]["Type"] == "AWS::SNS::Topic"


def test_closed_days_of_metrics_are_packed_daily(template: dict[str, Any]) -> None:
    packing = _functions(template)["MetricsPackingFunction"]
    assert packing["Handler"] == "metrics_packing.handler"
    (schedule,) = packing["Events"].values()
    assert schedule == {"Type": "ScheduleV2", "Properties": {"ScheduleExpression": "rate(1 day)"}}


def test_the_console_is_served_privately_beside_the_api_with_the_runtimes_headers(template: dict[str, Any]) -> None:
    from devtools.local.console import CSP

    resources = template["Resources"]
    console = {name for name in resources if name.startswith("Console")}
    assert all(resources[name].get("Condition") in ("HasConsole", "UseCognito") for name in console)
    bucket = resources["ConsoleBucket"]["Properties"]
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    statement = resources["ConsoleBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert [s["Principal"] for s in statement] == [{"Service": "cloudfront.amazonaws.com"}]
    assert [s["Action"] for s in statement] == ["s3:GetObject"]
    assert "${ConsoleDistribution}" in statement[0]["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Sub"]
    config = resources["ConsoleDistribution"]["Properties"]["DistributionConfig"]
    origins = {origin["Id"]: origin for origin in config["Origins"]}
    assert origins["console-files"]["OriginAccessControlId"] == {"Fn::GetAtt": ["ConsoleOriginAccessControl", "Id"]}
    assert origins["api"]["OriginPath"] == {"Fn::Sub": "/${StageName}"}
    (api,) = config["CacheBehaviors"]
    assert api["PathPattern"] == "/v3/*" and api["TargetOriginId"] == "api"
    assert set(api["AllowedMethods"]) >= {"GET", "POST", "PUT", "PATCH", "DELETE"}
    # Managed-CachingDisabled: nothing of the API is cached.
    assert api["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
    assert "CustomErrorResponses" not in config  # an API 403/404 must reach the console as the API said it
    headers = resources["ConsoleHeadersPolicy"]["Properties"]["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    cognito, own = headers["ContentSecurityPolicy"]["ContentSecurityPolicy"]["Fn::If"][1:]
    assert own == CSP
    hosted = "https://${ConsoleUserPoolDomain}.auth.${AWS::Region}.amazoncognito.com"
    assert cognito == {"Fn::Sub": CSP.replace("connect-src 'self'", f"connect-src 'self' {hosted}")}


def test_the_consoles_cognito_pool_issues_the_console_jwts_the_api_verifies(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    assert template["Conditions"]["UseCognito"]["Fn::And"][0] == {"Condition": "HasConsole"}
    pool = resources["ConsoleUserPool"]["Properties"]
    assert pool["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is True  # invited users only
    assert pool["LambdaConfig"]["PreTokenGeneration"] == {"Fn::GetAtt": ["ConsoleClaimsFunction", "Arn"]}
    assert {a["Name"] for a in pool["Schema"]} == {"account_id", "scope"}
    clients = {
        resources[n]["Properties"]["ClientName"]: resources[n]["Properties"]
        for n in ("ConsoleTestClient", "ConsoleLiveClient")
    }
    assert set(clients) == {"postline-console-test", "postline-console-live"}  # the trigger's environments
    for client in clients.values():
        assert client["GenerateSecret"] is False and client["AllowedOAuthFlows"] == ["code"]  # PKCE in a browser
        assert client["CallbackURLs"] == [{"Fn::Sub": "https://${ConsoleDistribution.DomainName}/console/"}]
    permission = resources["ConsoleClaimsPermission"]["Properties"]
    assert permission["Principal"] == "cognito-idp.amazonaws.com"
    assert permission["SourceArn"] == {"Fn::GetAtt": ["ConsoleUserPool", "Arn"]}
    # Every API function verifies the pool's tokens when it exists, the parameters' otherwise.
    env = resources["WhoAmIFunction"]["Properties"]["Environment"]["Variables"]
    assert env["CONSOLE_JWKS_URL"]["Fn::If"][0] == "UseCognito"
    assert env["CONSOLE_JWKS_URL"]["Fn::If"][1]["Fn::Sub"].endswith("${ConsoleUserPool}/.well-known/jwks.json")
    assert env["CONSOLE_JWT_AUDIENCE"]["Fn::If"][1] == {
        "Fn::Join": [",", [{"Ref": "ConsoleTestClient"}, {"Ref": "ConsoleLiveClient"}]]
    }
    assert env["CONSOLE_JWKS"] == {"Fn::If": ["UseCognito", "", {"Ref": "ConsoleJwks"}]}


def test_a_pools_create_and_delete_may_make_and_remove_its_ses_pool_and_configuration_set(
    template: dict[str, Any],
) -> None:
    resources = template["Resources"]
    for name in ("CreateIpPoolFunction", "DeleteIpPoolFunction"):
        statements = [s for p in resources[name]["Properties"]["Policies"] for s in p.get("Statement", [])]
        (ses,) = [s for s in statements if any(a.startswith("ses:") for a in s["Action"])]
        assert {"ses:CreateDedicatedIpPool", "ses:CreateConfigurationSet", "ses:DeleteDedicatedIpPool"} <= set(
            ses["Action"]
        )
        assert all(
            r["Fn::Sub"].endswith(("dedicated-ip-pool/postline-*", "configuration-set/postline-*"))
            for r in ses["Resource"]
        )
        assert resources[name]["Properties"]["Environment"]["Variables"]["FEEDBACK_TOPIC_ARN"] == {
            "Ref": "FeedbackTopic"
        }
    reads = [s for p in resources["ListIpPoolsFunction"]["Properties"]["Policies"] for s in p.get("Statement", [])]
    assert not any(a.startswith("ses:") for s in reads for a in s["Action"])
