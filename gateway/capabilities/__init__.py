"""The gateway's capabilities: one service class per responsibility, each built from ``(rpc, settings)``.

Every method is async, keyword-only after the ``Caller`` (``gateway.caller``) it acts
for, and returns plain JSON-able dicts. Failures are ``gateway.gateway_errors``
exceptions: InvalidInput, NotFound, BackendUnavailable. An empty ``session_id``
means the scope's most recently active session (the memory service resolves it).
``gateway.gateway_composition.Gateway`` wires them; the edges (HTTP routes, MCP tools,
viewer pages) each depend on the one service they use.
"""
