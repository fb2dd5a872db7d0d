"""Real network peers for tests, on loopback and free ports: a DNS server and an MX (SMTP) server."""
