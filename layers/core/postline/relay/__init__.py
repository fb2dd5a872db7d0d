"""The SMTP relay task: delivers the live SMTP jobs the dispatcher Lambda hands over (a Lambda cannot
open port 25). A Fargate service in the cloud (infra/relay.Dockerfile), in-process in the embedded runtime."""
