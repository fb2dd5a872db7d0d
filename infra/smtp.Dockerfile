# The SMTP submission task (Fargate): the shared layer's package and its pinned requirements, run as
# `python -m postline.tasks.submission`. Build from the repository root:
#   docker build -f infra/smtp.Dockerfile -t postline-smtp .
# The task definition passes the TLS certificate and key (mounted from Secrets Manager) as --cert/--key
# and the environment of POST /v3/messages' function (postline/deployment.py SMTP_SETTINGS).
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
EXPOSE 587 465
ENTRYPOINT ["python", "-m", "postline.tasks.submission"]
CMD ["--cert", "/run/secrets/smtp-tls-cert.pem", "--key", "/run/secrets/smtp-tls-key.pem"]
