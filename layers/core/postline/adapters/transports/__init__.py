"""Outbound transports: where a recipient's copy goes next (simulator, SMTP, SES)."""
