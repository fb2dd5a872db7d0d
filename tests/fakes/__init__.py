"""In-memory fakes of the areas' ports, for tests that touch no network: one module per area, named after
the area whose port the fake implements (`tests/fakes/sending.py` fakes `postline/sending/ports.py`;
`shared.py` the clock, ids and meter). Import a fake from its area's module; nothing is re-exported here.
"""
