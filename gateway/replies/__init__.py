"""The gateway's typed replies: each memory/kg proto becomes one of these once, where the reply arrives.

Frozen dataclasses, one module per family of replies (``memory_replies``, ``score_replies``, ``kg_replies``,
``consolidation_replies``, ``hook_replies``, ``book_replies``, ``system_replies``, ``backfill_replies``); the
services take and return them, and only the edges turn them into JSON (``to_json``, a ``reply_json.JsonObject``:
the routes, whose response models in ``gateway.reply_models`` describe the same shapes, the MCP tools'
structured content, the viewer).

Imports only generated protobuf modules (no grpc runtime, no fastapi).
"""
