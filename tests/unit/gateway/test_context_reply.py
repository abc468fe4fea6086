"""get-context's typed reply (gateway/context_reply.py) and the JSON the hooks read from it.

The hooks (hooks/) and their tests read this JSON by key, so its keys, their order and their types
are pinned here; the route's response model (``reply_models.ContextOut``) must describe it too.
"""

from __future__ import annotations

import json

from gateway.context_reply import ContextReply, ContextTokens, Lesson, choice_of
from gateway.replies.kg_replies import KgRoute
from gateway.replies.memory_replies import Memory
from gateway.reply_models import ContextOut
from kernel.context_choice import ContextChoice, RankParts
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

KEYS = [
    "context",
    "known_context",
    "tokens",
    "memories",
    "choices",
    "lessons",
    "scoring_required",
    "scoring_ids",
    "scoring_prompt",
    "routing",
    "degraded",
    "timings_ms",
]
PARTS = mem_pb.RankParts(
    dense=0.812345, lexical=0.1, session_context=0.0, relevance=0.7, kg_weight=1.5, learned=0.2, final=0.66666
)


def test_an_empty_reply_is_the_json_a_timed_out_prompt_always_got() -> None:
    assert json.dumps(ContextReply.empty(("timeout",)).to_json()) == json.dumps(
        {
            "context": "",
            "known_context": "",
            "tokens": {"known_context": 0, "context": 0},
            "memories": [],
            "choices": [],
            "lessons": [],
            "scoring_required": False,
            "scoring_ids": [],
            "scoring_prompt": "",
            "routing": {
                "has_preference": False,
                "weights": {},
                "recommended": [],
                "confidence": 0.0,
                "concepts": [],
                "context_type": "",
                "available": False,
            },
            "degraded": ["timeout"],
            "timings_ms": {},
        }
    )


def test_a_choice_keeps_its_keys_rounds_its_numbers_and_reads_back_from_a_turn_record() -> None:
    kept = choice_of(mem_pb.ContextChoice(id="patterns_1", kept=True, reason="", relevance=0.712345, parts=PARTS))
    assert kept.to_json() == {
        "id": "patterns_1",
        "kept": True,
        "reason": "",
        "merged_ids": [],
        "relevance": 0.7123,
        "parts": {
            "dense": 0.8123,
            "lexical": 0.1,
            "session_context": 0.0,
            "relevance": 0.7,
            "kg_weight": 1.5,
            "learned": 0.2,
            "final": 0.6667,
            "kg_linked": False,
        },
    }
    assert list(kept.to_json()) == ["id", "kept", "reason", "merged_ids", "relevance", "parts"]
    copy = choice_of(mem_pb.ContextChoice(id="history_2", reason="duplicate of patterns_1", merged_ids=["patterns_1"]))
    assert copy.to_json()["parts"] is None and copy.to_json()["merged_ids"] == ["patterns_1"]
    for choice in (kept, copy):  # the turn record keeps the JSON; the viewer reads it back typed
        assert ContextChoice.from_json(json.loads(json.dumps(choice.to_json()))) == choice
    assert ContextChoice.from_json({"id": "x", "relevance": "high", "parts": "?"}) == ContextChoice(id="x", kept=False)


def test_a_full_reply_has_the_keys_in_order_and_matches_the_routes_response_model() -> None:
    memory = Memory.from_proto(
        mem_pb.Memory(id="memory_bank_1", collection="memory_bank", content="uv", importance=0.9)
    )
    route = KgRoute.from_proto(
        kg_pb.RouteResponse(weights={"patterns": 1.5}, has_preference=True), ["sqlite"], "debugging", ["memory_bank_1"]
    )
    reply = ContextReply(
        context="<scoring>\n\nblock",
        known_context="block",
        tokens=ContextTokens(known_context=2, context=5),
        memories=(memory,),
        choices=(ContextChoice(id="memory_bank_1", kept=True, relevance=0.5, parts=RankParts(kg_linked=True)),),
        lessons=(Lesson("patterns_1", "Use WAL", "patterns", "solution", 2, 0, 2, exchange=True, doc_id="x"),),
        scoring_required=True,
        scoring_ids=("history_1",),
        scoring_prompt="<scoring>",
        routing=route,
        degraded=("embedding",),
        timings_ms={"kg": 1.5, "memory": 3.25, "total": 5.0},
    )
    out = reply.to_json()
    assert list(out) == KEYS
    assert out["memories"] == [memory.to_json()] and out["routing"] == route.to_json()
    assert out["lessons"] == [
        {
            "id": "patterns_1",
            "content": "Use WAL",
            "collection": "patterns",
            "kind": "solution",
            "worked": 2,
            "failed": 0,
            "uses": 2,
            "project": "",
            "why": "",
        }
    ]
    assert (out["scoring_ids"], out["degraded"]) == (["history_1"], ["embedding"])
    assert json.dumps(out["timings_ms"]) == '{"kg": 1.5, "memory": 3.25, "total": 5.0}'
    assert ContextOut.model_validate(out).model_dump(exclude_none=True)["routing"]["fact_ids"] == ["memory_bank_1"]
