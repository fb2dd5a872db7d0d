"""The base of every Postline model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

# Every Model subclass pydantic has finished creating. `type.__subclasses__()` lists a class from the
# moment `type.__new__` returns, before pydantic has put its deferred validator in place: a build
# started from there in another thread is undone by that step, leaving the class marked complete
# with a placeholder validator that recurses on every use.
_CREATED: list[type[Model]] = []  # appended and copied whole: each one step under the GIL


class Model(BaseModel):
    """A pydantic model whose validator and serializer are built on first use, not when its module is
    imported (defer_build). A Lambda imports every model its handler module's routes name, and a
    container usually serves a few of them: building all at import was most of a route function's
    own cold start (bench i). Each route's first call builds what that route uses, once."""

    model_config = ConfigDict(defer_build=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _CREATED.append(cls)  # pydantic calls this hook once the class is fully set up


def created_models() -> list[type[Model]]:
    """The Model subclasses created so far, each only once pydantic has finished creating it."""
    return _CREATED[:]
