"""The viewer's readable numbers and its graph's table (issue 30): plain functions, no server."""

from __future__ import annotations

from datetime import UTC, datetime

from gateway.replies.kg_replies import GraphEdge, GraphNode, KgGraph
from gateway.ui import graph_view, ui_display
from gateway.ui.page_render import env

NOW = datetime(2026, 11, 25, 12, 0, 0, tzinfo=UTC)


def test_times_read_relative_with_the_exact_time_on_hover() -> None:
    assert ui_display.relative(datetime(2026, 11, 25, 11, 59, 30, tzinfo=UTC), NOW) == "just now"
    assert ui_display.relative(datetime(2026, 11, 25, 9, 0, tzinfo=UTC), NOW) == "3 h ago"
    assert ui_display.relative(datetime(2026, 11, 20, 12, 0, tzinfo=UTC), NOW) == "5 d ago"
    html = str(ui_display.when("2026-11-24T12:00:00+00:00", NOW))
    assert html == '<time datetime="2026-11-24T12:00:00+00:00" title="2026-11-24 12:00:00 UTC">1 d ago</time>'
    assert str(ui_display.when("not a time", NOW)) == "<span>not a time</span>"
    assert "&lt;b&gt;" in str(ui_display.when("<b>", NOW))  # an unparsable value is still escaped


def test_outcome_marks_are_spelled_out() -> None:
    assert ui_display.spelled_outcomes("[YY~]") == "worked, worked, partial"
    assert ui_display.spelled_outcomes("[?N]") == "unknown, failed"
    assert ui_display.spelled_outcomes("") == "never scored"


def test_highlight_marks_query_words_and_escapes_everything_else() -> None:
    html = str(ui_display.highlight("Deploy <script>x()</script> with Helm; deployment", "helm deploy"))
    assert html == (
        "<mark>Deploy</mark> &lt;script&gt;x()&lt;/script&gt; with <mark>Helm</mark>; <mark>deploy</mark>ment"
    )
    assert str(ui_display.highlight("a <b>", "")) == "a &lt;b&gt;"
    # Query words are regex-escaped, and markup in the query never reaches the page.
    assert str(ui_display.highlight("cost (ab+cd) <img>", "ab+cd <img>")) == (
        "cost (<mark>ab</mark>+<mark>cd</mark>) &lt;<mark>img</mark>&gt;"
    )
    rendered = env.from_string("{{ t|highlight(q) }}").render(t="<i>helm</i>", q="helm")
    assert rendered == "&lt;i&gt;<mark>helm</mark>&lt;/i&gt;"


def test_routing_table_drops_noise_and_sorts_and_pages() -> None:
    routing = {
        word: {"best_collection": "history", "success_rate": 0.5, "uses": 9} for word in ("doesn", "get", "head", "a1")
    }
    routing |= {f"topic{i:02d}": {"best_collection": "patterns", "success_rate": i / 40, "uses": i} for i in range(30)}
    rows = graph_view.routing_rows(routing)
    assert {r["concept"] for r in rows} == {f"topic{i:02d}" for i in range(30)}
    page, pages = graph_view.sorted_page(rows, "-uses", 1)
    assert pages == 2 and len(page) == graph_view.ROUTING_PAGE and page[0]["concept"] == "topic29"
    page, _ = graph_view.sorted_page(rows, "rate", 2)
    assert [r["concept"] for r in page] == ["topic25", "topic26", "topic27", "topic28", "topic29"]
    page, _ = graph_view.sorted_page(rows, "-concept", 9)  # past the end: the last page
    assert page[-1]["concept"] == "topic00"


def test_graph_nodes_are_labelled_with_text_not_ids() -> None:
    base = KgGraph(
        nodes=(
            GraphNode("concept:doesn", "concept", "doesn", 1.0),
            GraphNode("concept:deploy", "concept", "deploy", 1.0),
            GraphNode("entity:helm", "library", "helm", 1.0),
            GraphNode("fact:memory_bank_1", "fact", "memory_bank_1", 1.0),
        ),
        edges=(GraphEdge("entity:helm", "fact:memory_bank_1", "mentions", 1.0),),
        routing={},
    )
    problems = [
        graph_view.Problem(
            signature="s",
            text="helm rollback hangs",
            solutions=[graph_view.Solution(id="history_4047", rate=1.0, uses=2)],
        )
    ]
    rates = graph_view.rates_of({"deploy": {"best_collection": "history", "success_rate": 0.75, "uses": 4}})
    elements = graph_view.elements(base, None, problems, rates)
    labels = {n["data"]["id"]: n["data"]["label"] for n in elements["nodes"]}
    assert "concept:doesn" not in labels  # noise concepts are not drawn
    assert labels["fact:memory_bank_1"] == "fact about helm"
    assert labels["doc:history_4047"] == "solution to helm rollback hangs"
    data = {n["data"]["id"]: n["data"] for n in elements["nodes"]}
    assert data["concept:deploy"]["rate"] == "routes to history: 75% success over 4 uses"
    assert data["doc:history_4047"]["rate"] == "solved it 100% of the time over 2 uses"
    assert graph_view.matching_problems(problems, "Helm hangs") == problems
    assert graph_view.matching_problems(problems, "postgres") == []


def test_when_reads_seconds_since_the_epoch_as_an_iso_time_reads() -> None:
    now = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
    at = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)
    assert ui_display.when(at.timestamp(), now) == ui_display.when(at.isoformat(), now)
    assert "3 h ago" in ui_display.when(at.timestamp(), now)
    assert ui_display.when(0.0, now) == "<span>—</span>"
