# spamd for the content check (Fargate, beside the relay): Debian's SpamAssassin, network tests off.
# Build from the repository root:
#   docker build -f infra/spamd.Dockerfile -t postline-spamd .
# It listens on 783 inside the VPC (10.40.0.0/16, the template's); the dispatcher and POST
# /v3/messages/check reach it over Cloud Map (spamd.postline.internal:783, the SpamdAddress
# parameter) from SpamdClientSecurityGroup only. It runs as nobody; its rules are the package's.
# --local: no DNS blocklists, URIBL, Razor or Pyzor (a score depends on the message alone, as in
# `make run`); no user configuration; no Bayes (nothing learns from customers' mail).
FROM public.ecr.aws/docker/library/debian:bookworm-slim

RUN apt-get update \
    && apt-get install --yes --no-install-recommends spamd=4.0.1-1~deb12u1 spamassassin=4.0.1-1~deb12u1 \
    && rm -rf /var/lib/apt/lists/*

USER 65534:65534
EXPOSE 783
ENTRYPOINT ["spamd", "--listen=0.0.0.0:783", "--allowed-ips=10.40.0.0/16", "--local", "--nouser-config", \
            "--syslog=stderr", "--min-children=2", "--max-children=8", "--pidfile=/tmp/spamd.pid", \
            "--helper-home-dir=/tmp", "--cf=use_bayes 0", "--cf=bayes_auto_learn 0"]
