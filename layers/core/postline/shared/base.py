"""The base of every Postline model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """A pydantic model whose validator and serializer are built on first use, not when its module is
    imported (defer_build). A Lambda imports every model its handler module's routes name, and a
    container usually serves a few of them: building all at import was most of a route function's
    own cold start (bench i). Each route's first call builds what that route uses, once."""

    model_config = ConfigDict(defer_build=True)
