"""Templates over HTTP: create, list (page-numbered), get, PATCH (version + 1), delete, and what a
send does with one: vars_schema checked, {{variables}} rendered, HTML-escaped in html only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from tests.e2e.sending_support import (
    Sender,
    accepted,
    body_of,
    mail_for,
    recipient,
    settle,
    unverified_sender,
)
from tests.e2e.support import Api, assert_error

pytestmark = pytest.mark.e2e

TEMPLATE_FIELDS = {
    "id",
    "name",
    "description",
    "subject",
    "html",
    "text_body",
    "vars_schema",
    "version",
    "active",
    "category",
    "created_at",
    "updated_at",
}
WELCOME = {
    "name": "Welcome",
    "description": "First email after sign-up",
    "subject": "Welcome, {{ name }}",
    "html": "<h1>Hello {{ name }}</h1>",
    "text_body": "Hello {{ name }}",
    "vars_schema": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
    "category": "onboarding",
}


@pytest.fixture
def owner(runtime: Any) -> Sender:
    """An account of its own (list counts are exact). No verified domain: its live sends are
    accepted and rendered, then rejected before send, so nothing here is delivered."""
    return unverified_sender(runtime)


def create(api: Api, **fields: Any) -> dict[str, Any]:
    response = api.post("/v3/templates", json={**WELCOME, **fields})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def send_with(owner: Sender, template_id: str, variables: dict[str, Any] | None = None, **fields: Any) -> Any:
    body = {"from": owner.address, "to": [recipient()], "template_id": template_id, **fields}
    if variables is not None:
        body["vars"] = variables
    return owner.live.post("/v3/messages", json=body)


def subject_of(api: Api, message_id: str) -> str:
    subject: str = api.get(f"/v3/messages/{message_id}").json()["subject"]
    return subject


# -- the resource ---------------------------------------------------------------------------------


def test_create_returns_the_template_at_version_1(owner: Sender) -> None:
    created = create(owner.live)
    assert set(created) == TEMPLATE_FIELDS
    assert created["id"].startswith("tpl_")
    assert {k: created[k] for k in WELCOME} == WELCOME
    assert (created["version"], created["active"]) == (1, True)
    assert created["created_at"] == created["updated_at"]
    datetime.fromisoformat(created["created_at"])


def test_only_a_name_is_required(owner: Sender) -> None:
    response = owner.live.post("/v3/templates", json={"name": "  Bare  "})
    assert response.status_code == 201, response.text
    bare = response.json()
    assert bare["name"] == "Bare"
    assert [bare[k] for k in ("description", "subject", "html", "text_body", "vars_schema", "category")] == [None] * 6


def test_get_returns_the_template_and_other_accounts_get_404(owner: Sender, runtime: Any) -> None:
    created = create(owner.live)
    response = owner.live.get(f"/v3/templates/{created['id']}")
    assert response.status_code == 200 and response.json() == created
    stranger = unverified_sender(runtime)
    assert_error(stranger.live.get(f"/v3/templates/{created['id']}"), 404, "not_found")
    assert_error(stranger.live.patch(f"/v3/templates/{created['id']}", json={"name": "mine"}), 404, "not_found")
    assert_error(stranger.live.delete(f"/v3/templates/{created['id']}"), 404, "not_found")
    assert_error(owner.live.get("/v3/templates/tpl_nothing_here"), 404, "not_found")


def test_the_list_is_page_numbered(owner: Sender) -> None:
    ids = {create(owner.live, name=f"T{i}")["id"] for i in range(3)}
    first = owner.live.get("/v3/templates?per_page=2").json()
    assert set(first) == {"items", "pagination"}
    assert first["pagination"] == {"page": 1, "per_page": 2, "total_count": 3, "total_pages": 2}
    second = owner.live.get("/v3/templates?per_page=2&page=2").json()
    assert second["pagination"] == {"page": 2, "per_page": 2, "total_count": 3, "total_pages": 2}
    assert len(first["items"]) == 2 and len(second["items"]) == 1
    assert {t["id"] for t in first["items"] + second["items"]} == ids
    assert all(set(t) == TEMPLATE_FIELDS for t in first["items"])
    beyond = owner.live.get("/v3/templates?per_page=2&page=3").json()
    assert beyond["items"] == [] and beyond["pagination"]["total_count"] == 3


@pytest.mark.parametrize("query", ["per_page=0", "per_page=101", "page=0", "page=x"])
def test_bad_page_parameters_are_validation_errors(owner: Sender, query: str) -> None:
    assert_error(owner.live.get(f"/v3/templates?{query}"), 400, "validation_error")


def test_patch_changes_only_the_given_fields_and_bumps_the_version(owner: Sender) -> None:
    created = create(owner.live)
    response = owner.live.patch(f"/v3/templates/{created['id']}", json={"subject": "Hi {{ name }}"})
    assert response.status_code == 200, response.text
    patched = response.json()
    assert patched["version"] == 2 and patched["subject"] == "Hi {{ name }}"
    assert {k: patched[k] for k in TEMPLATE_FIELDS - {"subject", "version", "updated_at"}} == {
        k: created[k] for k in TEMPLATE_FIELDS - {"subject", "version", "updated_at"}
    }
    assert datetime.fromisoformat(patched["updated_at"]) >= datetime.fromisoformat(created["updated_at"])
    assert owner.live.get(f"/v3/templates/{created['id']}").json() == patched

    again = owner.live.patch(f"/v3/templates/{created['id']}", json={"description": None, "active": False}).json()
    assert (again["version"], again["description"], again["active"]) == (3, None, False)


def test_a_patch_applies_to_the_next_send(owner: Sender) -> None:
    created = create(owner.live)
    owner.live.patch(f"/v3/templates/{created['id']}", json={"subject": "Version two for {{ name }}"})
    sent = accepted(send_with(owner, created["id"], {"name": "Ann"}))
    assert subject_of(owner.live, sent["id"]) == "Version two for Ann"


@pytest.mark.parametrize(
    "body",
    [
        {"name": "x", "surprise": True},
        {"name": "x", "version": 7},
        {"name": "x", "html": "{{ unclosed"},
        {"name": "x", "vars_schema": {"type": "no-such-type"}},
        {"name": None},
    ],
    ids=["unknown-field", "version-is-not-writable", "syntax-error", "bad-schema", "null-name"],
)
def test_invalid_patches_are_validation_errors(owner: Sender, body: dict[str, Any]) -> None:
    created = create(owner.live)
    response = owner.live.patch(f"/v3/templates/{created['id']}", json=body)
    if body == {"name": None}:  # a template always has a name: null leaves it as it is
        assert response.status_code == 200 and response.json()["name"] == "Welcome"
        return
    assert_error(response, 400, "validation_error")
    assert owner.live.get(f"/v3/templates/{created['id']}").json()["version"] == 1


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 201},
        {"name": "x", "subject": "{{ name"},
        {"name": "x", "html": "{% for %}"},
        {"name": "x", "vars_schema": {"type": 12}},
        {"name": "x", "active": "yes please"},
        {"name": "x", "surprise": 1},
        ["not", "an", "object"],
    ],
)
def test_invalid_templates_are_validation_errors(owner: Sender, body: Any) -> None:
    assert_error(owner.live.post("/v3/templates", json=body), 400, "validation_error")


def test_malformed_json_is_invalid_json(owner: Sender) -> None:
    response = owner.live.post("/v3/templates", data='{"name": ', headers={"Content-Type": "application/json"})
    assert_error(response, 400, "invalid_json")


def test_delete_confirms_and_the_template_is_gone(owner: Sender) -> None:
    created = create(owner.live)
    response = owner.live.delete(f"/v3/templates/{created['id']}")
    assert response.status_code == 200, response.text
    assert set(response.json()) == {"message"} and response.json()["message"]
    assert_error(owner.live.get(f"/v3/templates/{created['id']}"), 404, "not_found")
    assert_error(send_with(owner, created["id"], {"name": "Ann"}), 400, "template_not_found")
    assert owner.live.get("/v3/templates").json()["pagination"]["total_count"] == 0


def test_a_read_only_key_cannot_write_templates(owner: Sender) -> None:
    created = owner.live.post("/v3/keys", json={"name": "reader", "scope": "read_only"})
    reader = owner.live.with_key(created.json()["key"])
    assert_error(reader.post("/v3/templates", json=WELCOME), 403, "insufficient_scope")
    template = create(owner.live)
    assert reader.get(f"/v3/templates/{template['id']}").status_code == 200
    assert_error(reader.patch(f"/v3/templates/{template['id']}", json={"name": "n"}), 403, "insufficient_scope")
    assert_error(reader.delete(f"/v3/templates/{template['id']}"), 403, "insufficient_scope")


# -- sending with a template ----------------------------------------------------------------------


def test_vars_schema_is_enforced_at_send_naming_the_variable(owner: Sender) -> None:
    schema = {
        "type": "object",
        "required": ["name", "count"],
        "properties": {"name": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
    }
    template = create(owner.live, vars_schema=schema, subject="{{ count }} items for {{ name }}")
    missing = assert_error(send_with(owner, template["id"], {"count": 2}), 400, "validation_error")
    assert "name" in missing["error"]["message"]
    wrong = assert_error(send_with(owner, template["id"], {"name": "Ann", "count": 0}), 400, "validation_error")
    assert "count" in wrong["error"]["message"]
    no_vars = assert_error(send_with(owner, template["id"]), 400, "validation_error")
    assert "name" in no_vars["error"]["message"] or "count" in no_vars["error"]["message"]
    sent = accepted(send_with(owner, template["id"], {"name": "Ann", "count": 2}))
    assert subject_of(owner.live, sent["id"]) == "2 items for Ann"


def test_a_batch_rejects_only_the_recipients_whose_vars_fail_the_schema(owner: Sender) -> None:
    template = create(owner.live)
    good, bad = recipient("good"), recipient("bad")
    body = {
        "from": owner.address,
        "template_id": template["id"],
        "recipients": [{"to": good, "vars": {"name": "Ann"}}, {"to": bad, "vars": {"name": 7}}],
    }
    result = accepted(owner.live.post("/v3/messages.batch", json=body))
    assert (result["accepted"], result["rejected"]) == (1, 1)
    (rejected,) = result["rejected_recipients"]
    assert (rejected["index"], rejected["to"]) == (1, bad) and "name" in rejected["reason"]
    assert subject_of(owner.live, result["message_ids"][0]) == "Welcome, Ann"


def test_variables_are_html_escaped_in_html_but_not_in_subject_or_text(api: Api, runtime: Any) -> None:
    template = create(api, vars_schema=None)
    name = "<b>Ann</b> & Co"
    to = recipient()
    body = {
        "from": f"hello@{runtime.dev['sending_domain']['domain']}",
        "to": [to],
        "template_id": template["id"],
        "vars": {"name": name},
        "track_opens": False,
        "track_clicks": False,
    }
    sent = accepted(api.post("/v3/messages", json=body))
    assert subject_of(api, sent["id"]) == f"Welcome, {name}"
    settle(runtime, sent["id"])
    (copy,) = mail_for(runtime, sent["id"])
    assert copy["headers"]["Subject"] == f"Welcome, {name}"
    assert (body_of(copy, "plain") or "").rstrip("\n") == f"Hello {name}"
    assert (body_of(copy, "html") or "").rstrip("\n") == "<h1>Hello &lt;b&gt;Ann&lt;/b&gt; &amp; Co</h1>"


def test_the_requests_own_subject_wins_over_the_templates(owner: Sender) -> None:
    template = create(owner.live)
    sent = accepted(send_with(owner, template["id"], {"name": "Ann"}, subject="My own subject"))
    assert subject_of(owner.live, sent["id"]) == "My own subject"


def test_missing_variables_render_empty_without_a_schema(owner: Sender) -> None:
    template = create(owner.live, vars_schema=None, subject="Hi {{ name }}!")
    sent = accepted(send_with(owner, template["id"]))
    assert subject_of(owner.live, sent["id"]) == "Hi !"


@pytest.mark.parametrize(
    ("html", "variables"),
    [("{{ 1 / n }}", {"n": 0}), ("{{ 'x' * n }}", {"n": 10**7}), ("{{ items | join(', ') }}", {"items": 5})],
    ids=["division-by-zero", "huge-repeat", "join-of-a-number"],
)
def test_a_template_failing_on_its_vars_is_a_400_not_a_500(owner: Sender, html: str, variables: dict[str, Any]) -> None:
    template = create(owner.live, vars_schema=None, html=html)
    assert_error(send_with(owner, template["id"], variables), 400, "validation_error")


def test_the_sandbox_hides_python_internals(owner: Sender) -> None:
    template = create(owner.live, vars_schema=None, subject="[{{ name.__class__.__mro__ }}]")
    sent = accepted(send_with(owner, template["id"], {"name": "Ann"}))
    assert subject_of(owner.live, sent["id"]) == "[]"


# -- rendering limits ------------------------------------------------------------------------------

UNBOUNDED = {
    "nested-100000-loops": "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    "chained-repetition": "{{ 'x' * 100000 * 100000 }}",
    "padding": "{{ 'x'|center(1000000000) }}{{ '%1000000000s' % 'x' }}",
    "big-power": "{{ 10 ** 64 ** 64 }}",
    "recursion": "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
}


@pytest.mark.parametrize("html", UNBOUNDED.values(), ids=UNBOUNDED.keys())
def test_a_template_breaking_a_rendering_limit_is_refused_at_save(owner: Sender, html: str) -> None:
    refused = assert_error(owner.live.post("/v3/templates", json={**WELCOME, "html": html}), 400, "validation_error")
    assert refused["error"]["message"].startswith("html: the template exceeds a rendering limit")
    template = create(owner.live)
    patched = owner.live.patch(f"/v3/templates/{template['id']}", json={"text_body": html})
    assert_error(patched, 400, "validation_error")


GROWING_WITH_VARS = {
    "nested-loops": "{% for i in range(n) %}{% for j in range(n) %}x{% endfor %}{% endfor %}",
    "chained-repetition": "{{ 'x' * n * n }}",
    "padding": "{{ name|center(n * n) }}{{ ('%' ~ (n * n) ~ 's') % name }}",
    "big-power": "{{ n ** n ** 2 }}",
    "recursion": "{% macro f(k) %}{% if k < n %}{{ f(k + 1) }}{% endif %}{% endmacro %}{{ f(0) }}",
}


@pytest.mark.parametrize("html", GROWING_WITH_VARS.values(), ids=GROWING_WITH_VARS.keys())
def test_a_send_whose_vars_break_a_limit_is_a_400(owner: Sender, html: str) -> None:
    template = create(owner.live, vars_schema=None, html=html)
    refused = assert_error(send_with(owner, template["id"], {"n": 100000, "name": "Ann"}), 400, "validation_error")
    assert "exceeds a rendering limit" in refused["error"]["message"]
    accepted(send_with(owner, template["id"], {"n": 3, "name": "Ann"}))


def test_a_batch_rejects_only_the_recipient_whose_vars_break_a_limit(owner: Sender) -> None:
    template = create(owner.live, vars_schema=None, html=GROWING_WITH_VARS["nested-loops"])
    first, greedy, last = recipient("first"), recipient("greedy"), recipient("last")
    body = {
        "from": owner.address,
        "template_id": template["id"],
        "recipients": [
            {"to": first, "vars": {"n": 2}},
            {"to": greedy, "vars": {"n": 100000}},
            {"to": last, "vars": {"n": 3}},
        ],
    }
    result = accepted(owner.live.post("/v3/messages.batch", json=body))
    assert (result["accepted"], result["rejected"]) == (2, 1)
    (rejected,) = result["rejected_recipients"]
    assert (rejected["index"], rejected["to"]) == (1, greedy)
    assert "exceeds a rendering limit" in rejected["reason"]


# -- previews ---------------------------------------------------------------------------------------


def test_a_preview_renders_a_saved_template_as_a_send_would_and_names_the_missing_variables(owner: Sender) -> None:
    template = create(owner.live, html="<h1>Hello {{ name }}</h1><p>{{ plan }}</p>")
    preview = owner.live.post("/v3/templates/render", json={"template_id": template["id"], "vars": {"name": "<Ann>"}})
    assert preview.status_code == 200, preview.text
    assert preview.json() == {
        "template_id": template["id"],
        "version": 1,
        "subject": "Welcome, <Ann>",
        "html": "<h1>Hello &lt;Ann&gt;</h1><p></p>",
        "text_body": "Hello <Ann>",
        "variables": ["name", "plan"],
        "missing_variables": ["plan"],
    }
    # What a send would refuse, the preview refuses with the same message.
    refused = assert_error(
        owner.live.post("/v3/templates/render", json={"template_id": template["id"]}), 400, "validation_error"
    )
    assert (
        refused["error"]["message"]
        == assert_error(send_with(owner, template["id"], {}), 400, "validation_error")["error"]["message"]
    )
    growing = create(owner.live, vars_schema=None, html=GROWING_WITH_VARS["nested-loops"])
    limited = owner.live.post("/v3/templates/render", json={"template_id": growing["id"], "vars": {"n": 100000}})
    assert "exceeds a rendering limit" in assert_error(limited, 400, "validation_error")["error"]["message"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"vars": {"name": "Ann"}},
        {"template_id": "tpl_x", "html": "<p>{{ name }}</p>"},
        {"html": "{% if %}"},
        {"subject": "Hi {{ name }}", "vars": []},
    ],
    ids=["empty", "vars-only", "both-sources", "syntax-error", "vars-not-an-object"],
)
def test_an_unusable_preview_request_is_a_validation_error(owner: Sender, body: dict[str, Any]) -> None:
    assert_error(owner.live.post("/v3/templates/render", json=body), 400, "validation_error")


def test_a_preview_of_another_accounts_template_is_404_and_changes_nothing(owner: Sender, runtime: Any) -> None:
    template = create(owner.live)
    other = unverified_sender(runtime)
    assert_error(
        other.live.post("/v3/templates/render", json={"template_id": template["id"], "vars": {"name": "x"}}),
        404,
        "not_found",
    )
    assert owner.live.get(f"/v3/templates/{template['id']}").json()["version"] == 1
