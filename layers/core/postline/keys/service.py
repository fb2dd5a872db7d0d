"""API key management: create, list, get, update, rotate, delete. Every write is audited."""

from __future__ import annotations

from typing import Any

from postline.audit.domain import Actor, AuditEntry
from postline.audit.service import new_audit_entry
from postline.keys.access import Environment, Scope
from postline.keys.domain import ApiKey, TestOutcomes, display_prefix, secret_prefix
from postline.keys.identity import Principal
from postline.keys.models import DeleteConfirmation, KeyCreate, KeyCreated, KeyDetail, KeyRotated, KeyUpdate, detail
from postline.keys.ports import KeyStore, SecretHasher
from postline.shared.errors import NotFound, ValidationFailed
from postline.shared.pagination import Page, slice_page
from postline.shared.ports import Clock, IdFactory

SECRET_LENGTH = 40  # base62 characters after pl_live_ / pl_test_: ~238 bits


class KeyService:
    def __init__(self, *, keys: KeyStore, hasher: SecretHasher, ids: IdFactory, clock: Clock) -> None:
        self._keys = keys
        self._hasher = hasher
        self._ids = ids
        self._clock = clock

    def list_page(self, principal: Principal, *, page: int, per_page: int) -> Page[KeyDetail]:
        keys = [detail(k) for k in self._keys.list_keys(principal.account.id)]
        return slice_page(keys, page=page, per_page=per_page)

    def get(self, principal: Principal, key_id: str) -> KeyDetail:
        return detail(self._require(principal, key_id))

    def create(self, principal: Principal, request: KeyCreate) -> KeyCreated:
        api_key, secret = self.new_key(
            account_id=principal.account.id,
            name=request.name,
            scope=request.scope,
            env=request.env,
            verify_before_send=request.verify_before_send,
            test_outcomes=request.test_outcomes,
            ip_allowlist=request.ip_allowlist,
        )
        self._keys.create_key(
            api_key,
            max_keys=principal.account.limits.api_keys,
            audit=self._audit(principal.actor(), api_key, "key.created"),
        )
        return KeyCreated(**api_key.model_dump(include=set(KeyCreated.model_fields)), key=secret)

    def new_key(
        self,
        *,
        account_id: str,
        name: str,
        scope: Scope,
        env: Environment,
        secret: str | None = None,
        **fields: Any,
    ) -> tuple[ApiKey, str]:
        """A key and its secret, not yet stored (the operator CLI and dev bootstrap use this too).

        `secret` re-creates a known key: the embedded runtime re-seeds its dev keys on every start.
        """
        if secret is not None and not secret.startswith(secret_prefix(env)):
            raise ValidationFailed(f"a {env.value} key's secret starts with {secret_prefix(env)}")
        secret = secret or self._secret(env)
        if env is Environment.TEST and fields.get("test_outcomes") is None:
            fields["test_outcomes"] = TestOutcomes()
        api_key = ApiKey(
            id=self._ids.new_id("key_"),
            account_id=account_id,
            name=name,
            prefix=display_prefix(secret),
            scope=scope,
            env=env,
            key_hash=self._hasher.hash(secret),
            created_at=self._clock.now(),
            **fields,
        )
        return api_key, secret

    def update(self, principal: Principal, key_id: str, request: KeyUpdate) -> KeyDetail:
        api_key = self._require(principal, key_id)
        changes = request.model_dump(exclude_unset=True)
        if not changes:  # nothing to change: no write, no audit entry
            return detail(api_key)
        for required in ("name", "scope", "ip_allowlist"):
            if required in changes and changes[required] is None:
                raise ValidationFailed(f"{required} cannot be null.")
        if "test_outcomes" in changes:
            if api_key.env is Environment.LIVE and changes["test_outcomes"] is not None:
                raise ValidationFailed("test_outcomes apply to test keys only; live keys always have null.")
            if api_key.env is Environment.TEST and changes["test_outcomes"] is None:
                changes["test_outcomes"] = TestOutcomes().model_dump()  # null resets to the defaults
        updated = ApiKey.model_validate({**api_key.model_dump(), **changes})
        self._keys.update_key(updated, self._audit(principal.actor(), updated, "key.updated", sorted(changes)))
        return detail(updated)

    def rotate(self, principal: Principal, key_id: str) -> KeyRotated:
        api_key = self._require(principal, key_id)
        secret = self._secret(api_key.env)
        rotated = api_key.model_copy(update={"key_hash": self._hasher.hash(secret), "prefix": display_prefix(secret)})
        self._keys.rotate_key(
            rotated,
            previous_hash=api_key.key_hash,
            audit=self._audit(principal.actor(), rotated, "key.rotated"),
        )
        return KeyRotated(**rotated.model_dump(include=set(KeyRotated.model_fields)), key=secret)

    def delete(self, principal: Principal, key_id: str) -> DeleteConfirmation:
        api_key = self._require(principal, key_id)
        self._keys.delete_key(api_key, self._audit(principal.actor(), api_key, "key.deleted"))
        return DeleteConfirmation(message=f"API key {api_key.id} deleted; its secret no longer works.")

    def _require(self, principal: Principal, key_id: str) -> ApiKey:
        api_key = self._keys.get_key(principal.account.id, key_id)
        if api_key is None:
            raise NotFound(f"API key {key_id} not found.")
        return api_key

    def _secret(self, env: Environment) -> str:
        return secret_prefix(env) + self._ids.secret(SECRET_LENGTH)

    def _audit(self, actor: Actor, api_key: ApiKey, action: str, changed: list[str] | None = None) -> AuditEntry:
        details = f"{api_key.name} ({api_key.scope.value}, {api_key.env.value})"
        if changed:
            details += "; changed: " + ", ".join(changed)
        return new_audit_entry(self._ids, actor, api_key.account_id, action, api_key.id, details, now=self._clock.now())
