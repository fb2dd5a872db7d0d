"""Email addresses as every area takes them: syntax checked and normalized by email-validator (no DNS),
split into address and domain, and the simulator's domain that test sends and checks answer for.

checked_address is the one check every address passes (sends, suppressions, lists, verification):
email-validator's syntax and lengths (254 octets for the address, 253 for the domain, under
RFC 5321's 255), and RFC 5321's 64 octets for the local part (4.5.3.1.1), which email-validator
counts in characters and only in its strict mode: counted here in UTF-8 octets, as SMTPUTF8 sends
it, so 33 "é" are too many."""

from __future__ import annotations

from email.headerregistry import Address as EmailAddress
from email.utils import getaddresses, parseaddr
from functools import lru_cache
from typing import Annotated

from email_validator import EmailNotValidError, EmailSyntaxError, ValidatedEmail, validate_email
from pydantic import AfterValidator

from postline.shared.header_text import check_header_text

SIMULATOR_DOMAIN = "simulator.postline.dev"
MAX_LOCAL_PART_OCTETS = 64  # RFC 5321 4.5.3.1.1


def checked_address(value: str) -> ValidatedEmail:
    """The address (stripped) checked for syntax only: whether the domain takes mail is the MX
    lookup's call at delivery, and the .test names of RFC 6761 are what development and tests send
    to. Raises email-validator's EmailNotValidError."""
    checked = validate_email(value.strip(), check_deliverability=False, allow_smtputf8=True, test_environment=True)
    octets = len(checked.local_part.encode("utf-8"))
    if octets > MAX_LOCAL_PART_OCTETS:
        raise EmailSyntaxError(
            f"The email address is too long before the @-sign ({octets} octets, at most {MAX_LOCAL_PART_OCTETS})."
        )
    return checked


def normalize_address(value: str) -> str:
    """A bare address, checked for syntax; the domain is lowercased (local parts are case-sensitive)."""
    if not isinstance(value, str):
        raise ValueError("must be an email address string")
    check_header_text(value, "the address")
    try:
        checked = checked_address(value)
    except EmailNotValidError as error:
        raise ValueError(f"{value.strip()!r} is not a valid email address: {error}") from error
    return f"{checked.local_part}@{checked.domain.lower()}"


def normalize_mailbox(value: str) -> str:
    """'Name <addr>' or 'addr' -> the same with the address normalized."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be an email address, optionally with a display name: 'Name <a@b.example>'")
    check_header_text(value, "the address")  # as sent: getaddresses would quietly drop a CR or LF
    found = getaddresses([value.strip()])
    if len(found) != 1 or not found[0][1] or value.count("<") > 1:
        raise ValueError(f"{value!r} must be exactly one email address")
    name, address = found[0]
    address = normalize_address(address)
    if not name:
        return address
    # Kept readable (no RFC 2047 encoding here; the MIME builder encodes what needs it).
    return str(EmailAddress(display_name=name, addr_spec=address))


@lru_cache(maxsize=1024)
def address_of(mailbox: str) -> str:
    """The address of a mailbox (`Name <a@b>` or `a@b`); cached: a batch's 5,000 messages share a sender."""
    return parseaddr(mailbox)[1]


def domain_of(address: str) -> str:
    return address_of(address).rsplit("@", 1)[-1].lower()


Address = Annotated[str, AfterValidator(normalize_address)]


Mailbox = Annotated[str, AfterValidator(normalize_mailbox)]


def normalize_email(value: str) -> str:
    """The address as the lists keep it: checked for syntax only (no DNS: the lists hold addresses,
    not mailboxes known to exist), normalized by email-validator, then lowercased. ValueError when
    it is not an address."""
    try:
        checked = checked_address(value)
    except EmailNotValidError as error:
        raise ValueError(f"{value.strip()!r} is not a valid email address: {error}") from error
    return checked.normalized.lower()
