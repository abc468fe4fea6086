"""The viewer's plain parts: graph elements, sign-in redirects, vendored files, template escaping."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from gateway.replies.kg_replies import GraphEdge, GraphNode, KgGraph
from gateway.ui import graph_view, signin
from gateway.ui.page_render import STATIC, TEMPLATES, env
from gateway.ui.pages.auth_page import _safe_next

VENDOR = STATIC / "vendor"


def test_problems_routing_and_elements_from_kg_data() -> None:
    export = {
        "problems": {
            "problems": {
                "sig-1": {"text": "pytest fails on import", "solutions": {"patterns_1": {"worked": 3, "failed": 1}}},
                "sig-2": {"text": "never solved", "solutions": {}},
            }
        }
    }
    problems = graph_view.problems_of(json.dumps(export))
    assert problems[0]["signature"] == "sig-1" and problems[0]["solutions"] == [
        {"id": "patterns_1", "rate": 0.75, "uses": 4}
    ]
    assert graph_view.problems_of("not json") == [] and graph_view.problems_of("") == []
    base = KgGraph(
        nodes=(
            GraphNode("concept:deploy", "concept", "deploy", 2.0),
            GraphNode("collection:working", "collection", "working", 0.8),
        ),
        edges=(GraphEdge("concept:deploy", "collection:working", "routes_to", 0.8),),
        routing={},
    )
    focused = KgGraph(
        nodes=(GraphNode("fact:memory_bank_1", "fact", "memory_bank_1", 1.0),),
        edges=(GraphEdge("ghost", "fact:memory_bank_1", "mentions", 1.0),),
        routing={},
    )
    elements = graph_view.elements(base, focused, problems)
    ids = [n["data"]["id"] for n in elements["nodes"]]
    assert ids == [
        "concept:deploy",
        "collection:working",
        "fact:memory_bank_1",
        "problem:sig-1",
        "doc:patterns_1",
        "problem:sig-2",
    ]
    assert elements["nodes"][2]["data"]["memory"] == "memory_bank_1"
    labels = {(e["data"]["source"], e["data"]["label"]) for e in elements["edges"]}
    assert labels == {("concept:deploy", "80%"), ("problem:sig-1", "75%")}  # the dangling edge is dropped
    rows = graph_view.routing_rows({"deploy": {"best_collection": "working", "success_rate": 0.8, "uses": 2}})
    assert rows == [{"concept": "deploy", "collection": "working", "rate": "80%", "rate_value": 0.8, "uses": 2}]


@pytest.mark.parametrize(
    ("target", "kept"),
    [
        ("/ui/books?project=x", True),
        ("/ui", True),
        ("https://evil.example/ui", False),
        ("//evil.example/ui", False),
        ("/api/books", False),
        ("/ui\\@evil", False),
        ("javascript:alert(1)", False),
    ],
)
def test_sign_in_only_returns_to_the_viewer(target: str, kept: bool) -> None:
    assert (_safe_next(target) == target) is kept


def test_a_session_is_a_random_id_that_maps_to_its_token_until_closed() -> None:
    store = signin.Sessions()
    token = "s3cret-token"
    first, second = store.open(token), store.open(token)
    assert first != second and token not in first and len(first) >= 40
    assert store.token_of(first) == token and store.token_of("forged") is None
    store.close(first)
    assert store.token_of(first) is None and store.token_of(second) == token


def test_which_tokens_sign_in() -> None:
    assert signin.viewer_of_token("shared", "shared", None) == signin.Viewer(None)
    assert signin.viewer_of_token("shared!", "shared", None) is None
    assert signin.viewer_of_token("", "", None) is None
    assert signin.auth_required("", None) is False and signin.auth_required("x", None) is True


def test_vendored_files_match_their_recorded_hashes() -> None:
    table = (VENDOR / "LICENSES.md").read_text()
    rows = re.findall(r"^\| (\S+\.js) \|.*\| ([0-9a-f]{64}) \|$", table, re.M)
    assert (
        {name for name, _ in rows}
        == {p.name for p in VENDOR.glob("*.js")}
        == {
            "htmx.min.js",
            "chart.umd.min.js",
            "cytoscape.min.js",
        }
    )
    for name, digest in rows:
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_templates_never_mark_content_safe_and_pages_load_nothing_remote() -> None:
    for path in [*TEMPLATES.glob("*.html"), *STATIC.glob("*.js"), *STATIC.glob("*.css")]:
        text = path.read_text()
        assert "|safe" not in text and "| safe" not in text and "innerHTML" not in text, path.name
        assert not re.search(r"(src|href)=\"https?:", text), path.name
    for path in TEMPLATES.glob("*.html"):
        scripts = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>", path.read_text())
        assert all('type="application/json"' in attrs for attrs in scripts), path.name  # no inline code


def test_autoescape_covers_markup_and_attributes() -> None:
    hostile = '<script>x</script>" onerror="y'
    html = env.from_string(
        '<p title="{{ v }}">{{ v }}</p><script type="application/json">{{ d|tojson }}</script>'
    ).render(v=hostile, d={"k": "</script><script>z()</script>"})
    assert "<script>x" not in html and 'onerror="y' not in html
    assert "</script><script>z" not in html and "\\u003c/script\\u003e" in html
