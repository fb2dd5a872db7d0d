"""Development tools that never deploy: the embedded runtime behind `make run` (devtools.local),
the moto patches its emulator runs with (devtools.moto_patches) and the operator CLI's local mode
(devtools.cli). Installed with the dev requirements (`pip install -e .`), never by the Lambda
layer: nothing under layers/core imports it (tests/infra/test_layer_isolation.py)."""
