"""The service's static egress address: where relayed mail and webhook calls come from."""
