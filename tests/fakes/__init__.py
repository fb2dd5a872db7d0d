"""In-memory fakes of the areas' ports, for tests that touch no network: one module per area, named after
the area whose port the fake implements (`tests/fakes/sending.py` fakes `postline/sending/ports.py`;
`shared.py` the clock, ids and meter). Import a fake from its area's module; nothing is re-exported here.

Conformance: `make typecheck` runs mypy (strict) over this package, and each module ends with an
`if TYPE_CHECKING:` block that assigns an instance of every fake to a variable annotated with the port
it stands in for (`_clock: Clock = FixedClock()`). A fake that drifts from its port (a member missing,
a signature changed) fails the build there; at run time the block does not run. A new fake adds its line.
A fake implements the whole port, not only what today's tests call.
"""
