"""Postline's Lambda layer.

In a Lambda's init (AWS_LAMBDA_FUNCTION_NAME is set) the cyclic garbage collector is off while the
handler imports the project's modules, and `wiring.cold_start`, which every handler calls right
after its imports, freezes the objects made so far (gc.freeze: later collections skip them) and
turns it back on. Otherwise the collections those imports trigger walk the objects the third-party
packages made before them, and the first collection after init would walk everything the imports
made (bench i measures a cold start's imports).
"""

import gc
import os

if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
    gc.disable()
