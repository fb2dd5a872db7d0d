"""The runnable-examples harness itself: which blocks run, and which answers it refuses."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.docs.runnable import (
    Call,
    Example,
    calls,
    documents,
    nav_pages,
    runnable_examples,
    script,
    unannounced,
    uses_before_setting,
)

ROOT = Path(__file__).resolve().parents[2]

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


def test_the_submission_port_is_the_runtime_s() -> None:
    example = Example(Path("smtp.md"), 1, "SMTP_PORT=2525   # make run's\nswaks --server 127.0.0.1:$SMTP_PORT\n")
    text, _ = script([example], "http://x", 40125)
    assert "SMTP_PORT=40125   # make run's" in text and "2525" not in text


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


def test_documents_are_the_readme_then_the_nav_in_order(tmp_path: Path) -> None:
    (tmp_path / "docs" / "guides").mkdir(parents=True)
    for page in ("index.md", "b.md", "guides/a.md", "orphan.md"):
        (tmp_path / "docs" / page).write_text("# x\n")
    nav = ["index.md", {"Later": "b.md"}, {"Guides": [{"A": "guides/a.md"}, {"Out": "https://example.com"}]}]
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "x", "nav": nav}))
    docs = tmp_path / "docs"
    assert documents(tmp_path) == [
        tmp_path / "README.md", docs / "index.md", docs / "b.md", docs / "guides" / "a.md", docs / "orphan.md"
    ]  # fmt: skip


def test_a_variable_used_before_its_page_sets_it_is_found() -> None:
    def page(*bodies: str) -> list[Example]:
        return [Example(Path("p.md"), 1, body) for body in bodies]

    assert uses_before_setting(page("curl -s $BASE/v3/whoami\n"), "BASE")
    assert uses_before_setting(page("ID=$(curl -s ${BASE}/v3/x)\n", "BASE=http://x\n"), "BASE")
    assert not uses_before_setting(page("BASE=http://x\n", "curl -s $BASE/v3/whoami\n"), "BASE")
    assert not uses_before_setting(page("curl -s $BASEMENT/\n"), "BASE")


def test_every_runnable_page_sets_what_it_uses_and_is_in_the_nav() -> None:
    """Each document runs in a shell of its own: it must set the base URL and the keys it reads."""
    found = documents(ROOT)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    docs = ROOT / config["docs_dir"]
    in_nav = {docs / page for page in nav_pages(config["nav"])}
    assert sorted(set(docs.rglob("*.md")) - in_nav) == [], "pages the site's nav leaves out"
    leaning = [
        f"{document.relative_to(ROOT)}: ${name}"
        for document in found
        for name in ("BASE", "KEY", "TEST_KEY")
        if uses_before_setting(runnable_examples(document), name)
    ]
    assert leaning == [], "pages that use what another page set:\n" + "\n".join(leaning)
    assert sum(bool(runnable_examples(d)) for d in found) >= 2  # the README's first send and the walk-through
