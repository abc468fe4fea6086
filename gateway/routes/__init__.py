"""REST routers: hooks (per-prompt), memory_api, books, system; admin is the CLI engineer's."""
