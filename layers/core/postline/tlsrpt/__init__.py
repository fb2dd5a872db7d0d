"""SMTP TLS Reporting (RFC 8460): the relay's TLS outcomes per recipient domain and day, reported daily."""
