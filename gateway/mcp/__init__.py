"""The mnemex MCP server: one set of tools, served over stdio and streamable HTTP.

- ``gateway.mcp.mcp_server.build_server(gateway)``: the tools, built on the gateway's services.
- ``gateway.mcp.stdio.run(start_stack)``: what ``mnemex mcp`` runs; the CLI injects the
  supervisor's ``ensure_running`` so the stack starts if needed.
- ``gateway.mcp.http.mount(app, gateway)``: the same tools at ``/mcp`` on the gateway.

This package file imports nothing, so ``mnemex.client_setup`` can read the
tool names without loading the MCP SDK.
"""
