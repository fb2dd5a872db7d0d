"""Cognito, as the console's sign-in uses it: the names of the pool's app clients (the trigger's
environment), and invitations (the operator's `postline console invite`)."""

from __future__ import annotations

import threading
from typing import Any

from postline.auth.console_claims import ACCOUNT_ATTRIBUTE, SCOPE_ATTRIBUTE
from postline.keys.access import Scope


class CognitoConsoleUsers:
    def __init__(self, client: Any) -> None:
        self._client = client
        self._names: dict[tuple[str, str], str] = {}  # a container's clients never change name
        self._lock = threading.Lock()

    def client_name(self, pool_id: str, client_id: str) -> str:
        key = (pool_id, client_id)
        with self._lock:
            if key not in self._names:
                described = self._client.describe_user_pool_client(UserPoolId=pool_id, ClientId=client_id)
                self._names[key] = described["UserPoolClient"]["ClientName"]
            return self._names[key]

    def invite(self, pool_id: str, email: str, account_id: str, scope: Scope) -> dict[str, Any]:
        """A user of the pool in `account_id`; Cognito emails them a temporary password."""
        created = self._client.admin_create_user(
            UserPoolId=pool_id,
            Username=email,
            UserAttributes=[
                {"Name": "email", "Value": email},
                {"Name": "email_verified", "Value": "true"},
                {"Name": ACCOUNT_ATTRIBUTE, "Value": account_id},
                {"Name": SCOPE_ATTRIBUTE, "Value": scope.value},
            ],
            DesiredDeliveryMediums=["EMAIL"],
        )
        user: dict[str, Any] = created["User"]
        return {
            "username": user["Username"],
            "email": email,
            "account_id": account_id,
            "scope": scope.value,
            "status": user["UserStatus"],
        }
