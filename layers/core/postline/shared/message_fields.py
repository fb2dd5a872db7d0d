"""Message fields whose rules more than one area applies: the subject, and the metadata keys the
events query filters on."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, StringConstraints

from postline.shared.header_text import check_header_text

MAX_SUBJECT = 998  # RFC 5322's line limit


METADATA_KEY = re.compile(r"^[A-Za-z0-9._-]{1,64}$")  # the events query filters on the same keys


Subject = Annotated[
    str,
    StringConstraints(max_length=MAX_SUBJECT),
    AfterValidator(lambda value: check_header_text(value, "the subject")),
]
