"""Development tools that never deploy: the embedded runtime behind `make run` (devtools.local)
and the moto patches its emulator runs with (devtools.moto_patches). Installed with the dev
requirements (`pip install -e .`), never by the Lambda layer: nothing under layers/core imports it."""
