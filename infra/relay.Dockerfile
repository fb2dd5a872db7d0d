# The SMTP relay task (Fargate): the shared layer's package and its pinned requirements, run as
# `python -m postline.tasks.relay`. Build from the repository root:
#   docker build -f infra/relay.Dockerfile -t postline-relay .
# It listens on nothing: it long-polls the relay queue and speaks SMTP out (port 25) through the
# VPC's NAT gateway, whose Elastic IP is the stack's OutboundIp. The task definition passes the
# dispatcher's environment (postline/deployment.py RELAY_SETTINGS).
FROM public.ecr.aws/docker/library/python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /opt/postline
COPY layers/core/requirements.txt requirements.txt
COPY requirements/constraints.txt constraints.txt
RUN pip install --no-cache-dir --requirement requirements.txt --constraint constraints.txt
COPY layers/core/postline postline

USER 65534:65534
ENTRYPOINT ["python", "-m", "postline.tasks.relay"]
