"""Templates rendered in Jinja2's sandbox under a budget, so no template can hang a send or fill memory.

Every render of one message (subject, html and text together) gets a `RenderBudget`: a number of
steps (each loop iteration, call, filter, attribute lookup, intercepted operator and output write),
a wall-clock deadline checked at each step, a cap on the characters it writes (captured blocks and
macros included) and a depth of nested calls (macros calling themselves). No value it builds may
exceed MAX_VALUE_CHARS: operations that grow strings or lists (`*`, `**`, `+`, `%`, `~`, padding,
`join`, `replace`, `format`, ...) are checked *before* they run, from their inputs' sizes, since
afterwards the memory is already spent.

Why in-process rather than a subprocess with resource limits: a persistent render worker would bound
everything by the OS, but costs a process per container, a pipe round trip per recipient (5,000 in a
batch) and process management in Lambda; these hooks are what Jinja's sandbox offers for exactly this
(`intercepted_binops`, `call`, `getattr`, the code generator), and the deadline catches what slips by.
"""

from __future__ import annotations

import re
import string
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache, wraps
from inspect import signature, unwrap
from typing import Any

import jinja2
import jinja2.meta
import jinja2.runtime
import jinja2.utils
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.sandbox import ImmutableSandboxedEnvironment

from postline.shared.errors import ValidationFailed
from postline.shared.header_text import header_text_problem
from postline.shared.message_fields import MAX_SUBJECT

# The documented limits of rendering one message (README, Templates; the OpenAPI description).
MAX_RENDER_SECONDS = 1.0
MAX_RENDER_STEPS = 200_000
MAX_VALUE_CHARS = 1_000_000  # any value built, and each rendered part
MAX_WRITTEN_CHARS = 2_000_000  # everything written, captured blocks and macro output included
MAX_CALL_DEPTH = 50
MAX_INT_BITS = 4_096  # integers up to ~1,233 digits
BATCH_RENDER_SECONDS = 10.0  # all recipients of one batch together: well inside the gateway's 29 s
LIMITS = (
    f"Rendering one message (subject, html and text together) takes at most {MAX_RENDER_SECONDS:g} s and "
    f"{MAX_RENDER_STEPS:,} steps (loop iterations, calls, filters, operators), builds no value and no part "
    f"longer than {MAX_VALUE_CHARS:,} characters, writes at most {MAX_WRITTEN_CHARS:,} characters (captured "
    f"blocks and macros included), nests calls at most {MAX_CALL_DEPTH} deep and keeps numbers within "
    f"{MAX_INT_BITS:,} bits; a batch renders all its recipients within {BATCH_RENDER_SECONDS:g} s. A template "
    "breaking a limit without vars is refused at save, one breaking it with a send's vars at send "
    "(400 validation_error; a batch rejects that recipient only)."
)


_TIME_SPENT = (
    f"rendering ran past its time budget ({MAX_RENDER_SECONDS:g} s a message, {BATCH_RENDER_SECONDS:g} s a batch)"
)


class RenderLimitExceeded(ValidationFailed):
    """400 validation_error: the template (with these vars) breaks a rendering limit."""


class _LimitHit(Exception):  # not a ValueError: filters such as |int swallow those
    pass


@dataclass
class RenderBudget:
    """What one message's rendering may still spend. Once broken it stays broken, so a filter that
    swallows the error cannot render on past it."""

    deadline: float
    steps: int = 0
    written: int = 0
    depth: int = 0
    broken: str | None = None

    @classmethod
    def start(cls, seconds: float = MAX_RENDER_SECONDS, *, until: float | None = None) -> RenderBudget:
        """A fresh budget of `seconds`, ending no later than `until` (a batch's deadline): broken from
        the start when that has passed, so a batch renders no recipient after it."""
        now = time.monotonic()
        budget = cls(deadline=now + seconds if until is None else min(now + seconds, until))
        if budget.deadline <= now:
            budget.broken = _TIME_SPENT
        return budget

    def step(self) -> None:
        if self.broken is not None:
            raise _LimitHit(self.broken)
        self.steps += 1
        if self.steps > MAX_RENDER_STEPS:
            self.fail(f"more than {MAX_RENDER_STEPS:,} steps (loop iterations, calls, filters, operators)")
        if self.steps % 64 == 0 and time.monotonic() > self.deadline:  # a clock read costs more than a step
            self.fail(_TIME_SPENT)

    def write(self, text: str) -> str:
        self.step()
        self.written += len(text)
        if self.written > MAX_WRITTEN_CHARS:
            self.fail(f"more than {MAX_WRITTEN_CHARS:,} characters written")
        return text

    def fail(self, reason: str) -> None:
        self.broken = reason
        raise _LimitHit(reason)


_active: ContextVar[RenderBudget | None] = ContextVar("render_budget", default=None)


def _budget() -> RenderBudget:
    budget = _active.get()
    if budget is None:
        # Outside a render: Jinja folding a constant expression while compiling. Leave it to run time.
        raise nodes.Impossible()
    return budget


# -- sizes -------------------------------------------------------------------------------------


def _size(value: Any, limit: int = MAX_VALUE_CHARS) -> int:
    """About how many characters `value` becomes as text, counted through containers (a list of a
    thousand references to one long string is a thousand long strings once printed). Stops counting
    past `limit`, so it costs at most `limit` steps whatever the value."""
    if isinstance(value, str):  # the common cases need no traversal
        return len(value)
    if isinstance(value, int):
        return value.bit_length() // 3 + 1
    if value is None or isinstance(value, float):
        return 1
    total, pending = 0, [value]
    while pending and total <= limit:
        item = pending.pop()
        if isinstance(item, str | bytes):
            total += len(item)
        elif isinstance(item, dict):
            total += len(item) + 1
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset | range):
            total += len(item) + 1
            if not isinstance(item, range):
                pending.extend(item)
        elif isinstance(item, jinja2.utils.Namespace):
            total += 1
            pending.append(object.__getattribute__(item, "_Namespace__attrs"))
        elif isinstance(item, int) and not isinstance(item, bool):
            total += item.bit_length() // 3 + 1
        else:
            total += 1
    return total


def _checked_arguments(args: tuple[Any, ...], kwargs: dict[str, Any], what: str) -> None:
    total = 0
    for value in (*args, *kwargs.values()):
        total += _size(value)
        _ensure(total, what)


def _ensure(size: int, what: str) -> None:
    if size > MAX_VALUE_CHARS:
        _budget().fail(f"{what} would exceed {MAX_VALUE_CHARS:,} characters")


def _checked(value: Any, what: str = "a value") -> Any:
    _ensure(_size(value), what)
    return value


def _width(value: Any, what: str) -> int:
    width = value if isinstance(value, int) else len(value) if isinstance(value, str) else 0
    _ensure(width, what)
    return width


def _materialized(values: Iterable[Any]) -> list[Any]:
    """An iterable's items (a filter's generator), counted as they come."""
    items, total = [], 0
    for item in values:
        _budget().step()
        total += _size(item)
        _ensure(total, "joined text")
        items.append(item)
    return items


# -- printf and str.format: widths and precisions are growth too -----------------------------------

_PRINTF_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]")
_NUMBER = re.compile(r"\d+")


@lru_cache(maxsize=1024)
def _printf_specs(fmt: str) -> tuple[int, int, bool]:
    """How many conversions a % format has, its largest width or precision, and whether one is '*'."""
    specs = _PRINTF_SPEC.findall(fmt)
    numbers = [int(n) for spec in specs for n in spec if n.isdigit()]
    return len(specs), max(numbers or [0]), any("*" in spec for spec in specs)


def _check_printf(fmt: str, args: Any) -> None:
    count, largest, star = _printf_specs(fmt)
    if star:
        _budget().fail("'*' widths in % formatting are not supported")
    _ensure(largest, "a % format width")
    _ensure(len(fmt) + count * (largest + _size(args)), "% formatting")


def _check_format(fmt: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    fields = [spec for _, name, spec, _ in string.Formatter().parse(fmt) if name is not None]
    if any("{" in (spec or "") for spec in fields):
        _budget().fail("nested {} in a format spec are not supported")
    largest = max([int(n) for spec in fields for n in _NUMBER.findall(spec or "")] or [0])
    _ensure(largest, "a format width")
    _ensure(len(fmt) + len(fields) * (largest + _size((args, kwargs))), "str.format")


# -- filters and str methods that grow their input: the size of the result, before it is built ------


def _argument(bound: dict[str, Any], name: str, default: Any = None) -> Any:
    return bound.get(name, default)


def _growth_of_filter(name: str, bound: dict[str, Any]) -> None:
    value = bound.get("value", bound.get("s"))
    text_size = _size(value)
    if name == "center":
        _width(_argument(bound, "width", 80), "center's width")
    elif name == "indent":
        lines = str(value).count("\n") + 1 if isinstance(value, str) else 1
        _ensure(text_size + lines * _width(_argument(bound, "width", 4), "indent"), "indent")
    elif name == "replace":
        _check_replace(value, _argument(bound, "old", ""), _argument(bound, "new", ""), _argument(bound, "count"))
    elif name == "format":
        _check_printf(str(value), (bound.get("args"), bound.get("kwargs")))
    elif name in ("batch", "slice"):
        count = _argument(bound, "linecount", _argument(bound, "slices", 1))
        _ensure(count if isinstance(count, int) else 0, f"{name}'s size")
    elif name == "wordwrap" and isinstance(value, str):
        width = _argument(bound, "width", 79)
        lines = len(value) // max(width if isinstance(width, int) else 1, 1) + len(value.split()) + 1
        _ensure(text_size + lines * len(str(_argument(bound, "wrapstring") or "\n")), "wordwrap")
    elif name == "urlize":
        extra = 60 + _size(_argument(bound, "target")) + _size(_argument(bound, "rel"))
        _ensure(2 * text_size + (text_size // 2 + 1) * extra, "urlize")
    elif name in ("tojson", "pprint"):
        indent = _argument(bound, "indent") or 0
        _ensure(text_size * (2 + (indent if isinstance(indent, int) else len(str(indent)))), name)
    elif name == "sum":
        items = bound.get("iterable") or ()
        if any(isinstance(item, list | tuple) for item in items):
            _ensure(len(items) * _size(items) // 10, "|sum of lists")  # each + copies: bound the work


def _check_replace(text: Any, old: Any, new: Any, count: Any) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        found = len(text) + 1 if old == "" else text.count(old)
        if isinstance(count, int) and count >= 0:
            found = min(found, count)
        _ensure(len(text) + found * max(len(new) - len(old), 0), "replace")


def _check_str_method(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    owner, name = getattr(method, "__self__", None), getattr(method, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in ("center", "ljust", "rjust", "zfill") and args:
        _width(args[0], f"{name}'s width")
    elif name == "expandtabs":
        tabsize = args[0] if args else kwargs.get("tabsize", 8)
        _ensure(len(owner) + owner.count("\t") * _width(tabsize, "expandtabs"), "expandtabs")
    elif name == "replace" and len(args) >= 2:
        _check_replace(owner, args[0], args[1], args[2] if len(args) > 2 else kwargs.get("count"))


def _check_binop(operator: str, left: Any, right: Any) -> None:
    sequence = (str, list, tuple)
    if operator == "*":
        if isinstance(left, int) and isinstance(right, int):
            _check_int_bits(abs(left).bit_length() + abs(right).bit_length())
        elif isinstance(left, sequence) and isinstance(right, int):
            _ensure(_size(left) * max(right, 0), "repetition")
        elif isinstance(right, sequence) and isinstance(left, int):
            _ensure(_size(right) * max(left, 0), "repetition")
    elif operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
        _check_int_bits(abs(left).bit_length() * right if abs(left) > 1 else 0)
    elif operator == "+" and isinstance(left, sequence) and isinstance(right, sequence):
        _ensure(_size(left) + _size(right), "concatenation")
    elif operator == "%" and isinstance(left, str):
        _check_printf(left, right)


def _check_int_bits(bits: int) -> None:
    if bits > MAX_INT_BITS:
        _budget().fail(f"a number larger than {MAX_INT_BITS:,} bits")


# -- the environment -------------------------------------------------------------------------------


class _MeteredCodeGenerator(CodeGenerator):
    """Jinja's code generator with the budget's hooks compiled in: every loop iteration counts a step,
    every output write is counted (and its value size-checked before it is turned into text), and
    `~` checks its operands' sizes before joining them."""

    def visit_For(self, node: nodes.For, frame: Frame) -> None:
        node.iter = nodes.Call(nodes.EnvironmentAttribute("metered_iter"), [node.iter], [], None, None)
        super().visit_For(node, frame)

    def _output_child_pre(self, node: nodes.Expr, frame: Frame, finalize: Any) -> None:
        self.write("environment.metered_write(")
        super()._output_child_pre(node, frame, finalize)
        self.write("environment.metered_value(")

    def _output_child_post(self, node: nodes.Expr, frame: Frame, finalize: Any) -> None:
        self.write(")")
        super()._output_child_post(node, frame, finalize)
        self.write(")")

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        # As Jinja's own, with the join function and its operands handed to metered_concat.
        if frame.eval_ctx.volatile:
            join = "(markup_join if context.eval_ctx.volatile else str_join)"
        else:
            join = "markup_join" if frame.eval_ctx.autoescape else "str_join"
        self.write(f"environment.metered_concat({join}, (")
        for argument in node.nodes:
            self.visit(argument, frame)
            self.write(", ")
        self.write("))")


class _Sandbox(ImmutableSandboxedEnvironment):
    """Template authors are customers: no attribute games, no mutation of vars, and every operation
    that could run long or grow large is counted or checked against the active RenderBudget."""

    code_generator_class = _MeteredCodeGenerator
    intercepted_binops = frozenset(["*", "**", "+", "%"])

    def __init__(self, *, autoescape: bool) -> None:
        # optimized=False: no constant folding at compile time, where no budget is active.
        super().__init__(autoescape=autoescape, undefined=jinja2.ChainableUndefined, optimized=False)
        self.globals.pop("lipsum", None)  # lorem ipsum of any length: no use in a sent email
        self.filters = {name: _metered_filter(name, function) for name, function in self.filters.items()}

    def metered_iter(self, iterable: Iterable[Any]) -> Iterator[Any]:
        budget = _budget()
        for item in iterable:
            budget.step()
            yield item

    def metered_value(self, value: Any) -> Any:
        return _checked(value, "an output value")

    def metered_write(self, text: str) -> str:
        return _budget().write(text)

    def metered_concat(self, join: Callable[[Iterable[Any]], str], parts: tuple[Any, ...]) -> str:
        _budget().step()
        return join(_checked(parts, "joined text"))

    def concat(self, parts: Iterable[str]) -> str:
        """A macro's, a captured block's or a filter block's output: refused before it is joined."""
        parts = list(parts)
        _ensure(sum(len(part) for part in parts), "captured output")
        return "".join(parts)

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        _budget().step()
        _check_binop(operator, left, right)
        return super().call_binop(context, operator, left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        _budget().step()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _budget().step()
        return super().getitem(obj, argument)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        template, is_map = value.__self__, value.__name__ == "format_map"

        @wraps(wrapped)
        def checked(*args: Any, **kwargs: Any) -> str:
            _check_format(template, () if is_map else args, args[0] if is_map and args else kwargs)
            return wrapped(*args, **kwargs)

        return checked

    def call(__self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        budget = _budget()
        budget.step()
        _checked_arguments(args, kwargs, "call arguments")
        _check_str_method(__obj, args, kwargs)
        budget.depth += 1
        try:
            if budget.depth > MAX_CALL_DEPTH:
                budget.fail(f"calls nested more than {MAX_CALL_DEPTH} deep (a macro calling itself?)")
            result = super().call(__context, __obj, *args, **kwargs)
        finally:
            budget.depth -= 1
        return _checked(result, "a call's result")


# Filters that can build something much larger than their input: their arguments are checked first.
_GROWING_FILTERS = {
    "center", "indent", "replace", "format", "batch", "slice", "wordwrap", "urlize", "tojson", "pprint", "join", "sum"
}  # fmt: skip


def _metered_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """A built-in filter that counts a step, checks its inputs (and, for the filters that grow
    them, the size of what it would build) before it runs, and the size of what it returned."""
    passed = 1 if getattr(function, "jinja_pass_arg", None) is not None else 0
    # Jinja's async variants take a context argument their (wrapped) signature does not show.
    hidden = passed if getattr(unwrap(function), "jinja_pass_arg", None) is None else 0
    shape = signature(function)

    @wraps(function)
    def metered(*args: Any, **kwargs: Any) -> Any:
        _budget().step()
        _checked_arguments(args[passed:], kwargs, f"the input of |{name}")
        if name not in _GROWING_FILTERS:
            return _checked(function(*args, **kwargs), f"the result of |{name}")
        call = shape.bind(*args[hidden:], **kwargs)
        bound = call.arguments
        if name in ("join", "sum"):
            items = "value" if name == "join" else "iterable"
            if not isinstance(bound[items], list | tuple | str | dict):
                bound[items] = _materialized(bound[items])  # a generator (|map): counted as it runs
            separator = len(str(bound.get("d", ""))) if name == "join" else 0
            _ensure(_size(bound[items]) + len(bound[items]) * separator, f"|{name}")
        _growth_of_filter(name, bound)
        return _checked(function(*args[:hidden], *call.args, **call.kwargs), f"the result of |{name}")

    return metered


@lru_cache(maxsize=2)
def _environment(autoescape: bool) -> _Sandbox:
    return _Sandbox(autoescape=autoescape)


@lru_cache(maxsize=256)
def _compiled(source: str, autoescape: bool) -> jinja2.Template:
    return _environment(autoescape).from_string(source)


def batch_deadline() -> float:
    """When a batch starting now must have rendered all its recipients (a RenderBudget's `until`)."""
    return time.monotonic() + BATCH_RENDER_SECONDS


def check_syntax(source: str | None) -> str | None:
    if source is not None:
        try:
            _environment(False).parse(source)
        except jinja2.TemplateSyntaxError as error:
            raise ValueError(f"template syntax error on line {error.lineno}: {error.message}") from error
    return source


def render_text(
    source: str | None, variables: dict[str, Any], *, html: bool = False, budget: RenderBudget | None = None
) -> str | None:
    """{{variables}} filled in; in html every value is HTML-escaped. Missing variables render empty.
    Without a budget this render gets a fresh one; a message's parts share theirs."""
    if source is None:
        return None
    budget = budget or RenderBudget.start()
    token = _active.set(budget)
    try:
        output, size = [], 0
        for chunk in _compiled(source, html).generate(variables):
            size += len(chunk)
            if size > MAX_VALUE_CHARS:
                budget.fail(f"the rendered text is longer than {MAX_VALUE_CHARS:,} characters")
            output.append(chunk)
        return "".join(output)
    except _LimitHit as error:
        raise RenderLimitExceeded(f"the template exceeds a rendering limit: {error}") from None
    except (MemoryError, RecursionError) as error:
        budget.broken = type(error).__name__
        raise RenderLimitExceeded(f"the template exceeds a rendering limit ({type(error).__name__})") from None
    except (jinja2.TemplateError, ArithmeticError, TypeError, ValueError, LookupError) as error:
        # A template failing on the sender's vars is the request's fault: 400, never 500.
        raise ValidationFailed(f"the template could not be rendered: {error}") from error
    finally:
        _active.reset(token)


def render_subject(source: str | None, variables: dict[str, Any], *, budget: RenderBudget | None = None) -> str:
    """A template's subject rendered, and fit for a header (one line, at most RFC 5322's 998)."""
    subject = render_text(source, variables, budget=budget) or ""
    problem = header_text_problem(subject) if len(subject) <= MAX_SUBJECT else f"longer than {MAX_SUBJECT}"
    if problem:
        raise ValidationFailed(f"subject: the rendered subject is unfit for a header: {problem}")
    return subject


def referenced_variables(*sources: str | None) -> list[str]:
    """The top-level variable names the sources read, sorted (a preview names those not given)."""
    names: set[str] = set()
    for source in sources:
        if source is not None:
            names |= jinja2.meta.find_undeclared_variables(_environment(False).parse(source))
    return sorted(names)


def check_limits(parts: dict[str, tuple[str | None, bool]]) -> None:
    """At save: each part (name -> (source, html)) rendered without vars. A template that breaks a
    limit even so (loops over literal ranges, recursion, big repetitions) is refused, naming the
    part; one that fails only for want of vars is the send's concern."""
    for name, (source, html) in parts.items():
        try:
            render_text(source, {}, html=html)
        except RenderLimitExceeded as error:
            raise RenderLimitExceeded(f"{name}: {error.message}") from None
        except ValidationFailed:
            pass
