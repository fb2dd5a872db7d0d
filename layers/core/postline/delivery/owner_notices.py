"""Platform notices to account owners (an endpoint auto-disabled, ...), sent outside any account's
quota through the service's own outbound path: SES, or the SMTP relay (the local mail sink)."""

from __future__ import annotations

import logging
import smtplib
from email.message import EmailMessage
from typing import Any

from postline.accounts.ports import AccountStore
from postline.delivery.transports.smtp import Relay

logger = logging.getLogger(__name__)


class OwnerNotifier:
    def __init__(self, accounts: AccountStore, sender: str, *, ses: Any, relay: Relay | None) -> None:
        self._accounts = accounts
        self._sender = sender
        self._ses = ses
        self._relay = relay

    def email_owner(self, account_id: str, subject: str, text: str) -> None:
        owner = self._owner(account_id, subject)
        if owner is None:
            return
        try:
            self._send(owner, subject, text)
        except Exception:  # a notice must never fail the delivery bookkeeping that triggered it
            logger.exception("notice to the owner of %s failed: %s", account_id, subject)

    def email_owner_or_raise(self, account_id: str, subject: str, text: str) -> None:
        """The notice, or the error that kept it from being sent (SES, SMTP): for a caller that
        retries it rather than lose it (the domain checks' warning)."""
        owner = self._owner(account_id, subject)
        if owner is not None:
            self._send(owner, subject, text)

    def _owner(self, account_id: str, subject: str) -> str | None:
        account = self._accounts.get_account(account_id)
        if account is None or not account.owner_email:
            logger.warning("account %s has no owner email; notice not sent: %s", account_id, subject)
            return None
        return account.owner_email

    def _send(self, to: str, subject: str, text: str) -> None:
        if self._relay is not None:
            self._smtp(to, subject, text, self._relay)
        else:
            self._ses.send_email(
                FromEmailAddress=self._sender,
                Destination={"ToAddresses": [to]},
                Content={"Simple": {"Subject": {"Data": subject}, "Body": {"Text": {"Data": text}}}},
            )

    def _smtp(self, to: str, subject: str, text: str, relay: Relay) -> None:
        message = EmailMessage()
        message["From"] = self._sender
        message["To"] = to
        message["Subject"] = subject
        message.set_content(text)
        with smtplib.SMTP(relay.host, relay.port, timeout=30) as smtp:
            smtp.send_message(message)
