"""The runnable-examples harness itself: which blocks run, and which answers it refuses."""

from __future__ import annotations

from pathlib import Path

from tests.docs.runnable import Call, Example, calls, runnable_examples, script, unannounced

DOC = """# Title

```sh
echo not runnable
```

```sh runnable
BASE=http://127.0.0.1:3000
# 1. Who am I?
curl -s $BASE/v3/whoami

# 2. A send-only key may not manage keys: 403 insufficient_scope.
curl -s -X POST $BASE/v3/keys \\
  -d '{}'
curl -s $BASE/v3/nothing   # 404 not_found
```
"""


def test_only_runnable_blocks_run_with_the_runtime_s_url(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    (example,) = runnable_examples(doc)
    assert example.first_line == 8 and "not runnable" not in example.body
    text, _ = script([example], "http://127.0.0.1:4321")
    assert "BASE=http://127.0.0.1:4321" in text and "3000" not in text


def test_each_call_maps_to_its_line_and_step(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    examples = runnable_examples(doc)
    text, starts = script(examples, "http://x")
    first = next(n for n, line in enumerate(text.splitlines(), 1) if "v3/whoami" in line)
    second = next(n for n, line in enumerate(text.splitlines(), 1) if "X POST" in line)
    third = next(n for n, line in enumerate(text.splitlines(), 1) if "v3/nothing" in line)
    stderr = f"@@curl {first} 403\nnoise\n@@curl {second} 403\n@@curl {third} 404\n@@curl {first} 000\n"
    made = calls(stderr, starts)
    assert [(c.line, c.status) for c in made] == [(10, 403), (13, 403), (15, 404), (10, 0)]
    assert [unannounced(c) for c in made] == [True, False, False, True]


def test_5xx_is_never_announced() -> None:
    example = Example(Path("x.md"), 1, "")
    assert unannounced(Call(example, 1, 503, "# 1. may answer 503"))
    assert not unannounced(Call(example, 1, 200, "# 1."))
