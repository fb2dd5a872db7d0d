"""Each function's environment, validated once at cold start (template.yaml Globals sets it)."""

from __future__ import annotations

import os

from pydantic import BaseModel, Field


class Settings(BaseModel):
    resources_table: str = Field(alias="RESOURCES_TABLE")
    counters_table: str = Field(alias="COUNTERS_TABLE")
    key_hash_secret_id: str = Field(alias="KEY_HASH_SECRET_ID")
    console_jwks: str = Field(default="", alias="CONSOLE_JWKS")  # JSON Web Key Set of console signers
    console_jwt_audience: str = Field(default="postline-console", alias="CONSOLE_JWT_AUDIENCE")
    console_jwt_issuer: str = Field(default="", alias="CONSOLE_JWT_ISSUER")

    @classmethod
    def from_env(cls) -> Settings:
        return cls.model_validate(dict(os.environ))
