"""Rendering is bounded: every template that would run long or build something huge is a 400
validation_error naming the limit it broke, refused before the work or the memory is spent."""

from __future__ import annotations

import time
from typing import Any

import pytest

from postline.shared.errors import ValidationFailed
from postline.templates.domain import Template
from postline.templates.rendering import (
    MAX_CALL_DEPTH,
    MAX_VALUE_CHARS,
    RenderBudget,
    RenderLimitExceeded,
    check_limits,
    render_text,
)

BIG = "{% set big = 'x' * 100000 %}"
ABUSES = {
    "nested-100000-loops": "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    "loops-over-a-var": "{% for i in items %}{% for j in items %}{% for k in items %}.{% endfor %}{% endfor %}"
    "{% endfor %}",
    "chained-repetition": "{{ 'x' * 100000 * 100000 }}",
    "repeated-list": "{{ [1] * 100000 * 100000 }}",
    "concatenation-doubling": BIG + "{% set b = big ~ big ~ big ~ big ~ big ~ big ~ big ~ big ~ big ~ big ~ big %}",
    "plus-doubling": BIG + "{% set b = big + big + big + big + big + big + big + big + big + big + big %}",
    "namespace-doubling": "{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}"
    "{% endfor %}",
    "center-filter": "{{ 'x'|center(1000000000) }}",
    "ljust-method": "{{ 'x'.ljust(1000000000) }}",
    "zfill-method": "{{ '1'.zfill(1000000000) }}",
    "percent-width": "{{ '%1000000000s' % 'x' }}",
    "percent-precision": "{{ '%.1000000000f' % 1.5 }}",
    "percent-star": "{{ '%*s' % (1000000000, 'x') }}",
    "format-filter-width": "{{ '%1000000000s'|format('x') }}",
    "str-format-width": "{{ '{:>1000000000}'.format('x') }}",
    "str-format-nested-width": "{{ '{:>{}}'.format('x', 1000000000) }}",
    "indent-filter": BIG + "{{ big|wordwrap(1)|indent(100000) }}",
    "replace-growth": BIG + "{{ big|replace('x', 'yyyyyyyyyyyyyyyyyyyy') }}",
    "join-of-references": BIG + "{{ [big, big, big, big, big, big, big, big, big, big, big]|join }}",
    "printed-references": BIG + "{% set l = [big, big, big, big, big, big, big, big, big, big, big] %}{{ l }}",
    "batch-fill": "{{ [1]|batch(1000000000, 'x')|list }}",
    "expandtabs": "{{ ('\t' * 100000).expandtabs(1000) }}",
    "big-power": "{{ 10 ** 64 ** 64 }}",
    "power-of-a-power": "{% set a = 10 ** 64 %}{{ a ** 100 }}",
    "squaring-loop": "{% set ns = namespace(n=2) %}{% for i in range(64) %}{% set ns.n = ns.n * ns.n %}{% endfor %}",
    "recursive-macro": "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
    "fan-out-macro": "{% macro f(n) %}{% if n < 40 %}{{ f(n + 1) }}{{ f(n + 1) }}{% endif %}{% endmacro %}{{ f(0) }}",
    "recursive-loop": "{% for i in range(10) recursive %}{{ loop(range(10)) }}{% endfor %}",
    "captured-block": BIG + "{% set b %}{% for i in range(100) %}{{ big }}{% endfor %}{% endset %}",
    "macro-output": BIG + "{% macro m() %}{% for i in range(100) %}{{ big }}{% endfor %}{% endmacro %}{{ m()|length }}",
    "long-output": "{% for i in range(100000) %}{{ '" + "y" * 60 + "' }}{% endfor %}",
}


@pytest.mark.parametrize("source", ABUSES.values(), ids=ABUSES.keys())
@pytest.mark.parametrize("html", [False, True], ids=["text", "html"])
def test_a_template_breaking_a_limit_is_a_validation_error(source: str, html: bool) -> None:
    with pytest.raises(RenderLimitExceeded, match="exceeds a rendering limit") as raised:
        render_text(source, {"items": list(range(1000))}, html=html)
    assert raised.value.code == "validation_error" and raised.value.status == 400


def test_the_error_names_the_limit() -> None:
    with pytest.raises(RenderLimitExceeded, match=r"more than 200,000 steps"):
        render_text(ABUSES["nested-100000-loops"], {})
    with pytest.raises(RenderLimitExceeded, match=f"nested more than {MAX_CALL_DEPTH} deep"):
        render_text(ABUSES["recursive-macro"], {})
    with pytest.raises(RenderLimitExceeded, match="1,000,000 characters"):
        render_text(ABUSES["center-filter"], {})
    with pytest.raises(RenderLimitExceeded, match="4,096 bits"):
        render_text(ABUSES["big-power"], {})


def test_what_fits_the_limits_renders() -> None:
    source = (
        "{% for row in rows %}{{ row.name|upper }}: {{ '%05.1f'|format(row.price) }} {{ '{:>6}'.format(row.qty) }}"
        "{{ ', ' if not loop.last }}{% endfor %} {{ 'x' * 3 }} {{ 2 ** 10 }} {{ ('ab' * 5)|center(14) }}"
    )
    rows = [{"name": "tea", "price": 2.5, "qty": 3}, {"name": "cake", "price": 4.25, "qty": 1}]
    assert render_text(source, {"rows": rows}) == "TEA: 002.5      3, CAKE: 004.2      1 xxx 1024   ababababab  "
    exactly = render_text("{{ 'x' * n }}", {"n": MAX_VALUE_CHARS})
    assert exactly is not None and len(exactly) == MAX_VALUE_CHARS


def test_a_spent_time_budget_stops_the_render() -> None:
    """A batch's deadline: once it has passed, the next recipient's render stops at its first steps."""
    spent = RenderBudget.start(until=time.monotonic() - 1)
    with pytest.raises(RenderLimitExceeded, match="time budget"):
        render_text("{{ name }}", {"name": "Ann"}, budget=spent)


def test_a_broken_budget_stays_broken_for_the_other_parts_of_the_message() -> None:
    budget = RenderBudget.start()
    with pytest.raises(RenderLimitExceeded):
        render_text(ABUSES["recursive-macro"], {}, budget=budget)
    with pytest.raises(RenderLimitExceeded):
        render_text("{{ name }}", {"name": "Ann"}, budget=budget)


def test_memory_and_recursion_errors_are_validation_errors_too(monkeypatch: pytest.MonkeyPatch) -> None:
    for error in (MemoryError, RecursionError):

        def explode(*args: Any, error: type[BaseException] = error, **kwargs: Any) -> Any:
            raise error()

        monkeypatch.setattr("postline.templates.rendering.RenderBudget.write", explode)
        with pytest.raises(RenderLimitExceeded, match=error.__name__):
            render_text("{{ name }}", {"name": "Ann"})


# -- at save -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("part", ["subject", "html", "text_body"])
def test_a_template_that_breaks_a_limit_without_vars_is_refused_at_save(part: str) -> None:
    template = Template(id="tpl_1", name="t", **{part: ABUSES["nested-100000-loops"]})
    parts = {name: (getattr(template, name), name == "html") for name in ("subject", "html", "text_body")}
    with pytest.raises(RenderLimitExceeded, match=f"^{part}: the template exceeds a rendering limit"):
        check_limits(parts)


def test_what_depends_on_the_vars_is_left_to_the_send() -> None:
    check_limits({"html": ("{{ 'x' * n }}{{ items|join }}{{ missing.deep() }}", True)})
    with pytest.raises(ValidationFailed):
        render_text("{{ 'x' * n }}", {"n": 10**9})
