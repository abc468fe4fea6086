"""Client channels to peer services, with the message limits servers accept."""

from __future__ import annotations

import json

import grpc

MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # servers (kernel.grpc_hosting) accept the same

# Embedding calls are pure functions of their input, so a call that finds its replica gone
# (UNAVAILABLE: killed, restarting, scaled down) is retried, on the next replica under
# round_robin. Memory and kg calls write, and are never retried blindly.
SERVICE_CONFIG = json.dumps(
    {
        "methodConfig": [
            {
                "name": [{"service": "mnemex.embedding.v1.EmbeddingService"}],
                "retryPolicy": {
                    "maxAttempts": 4,
                    "initialBackoff": "0.02s",
                    "maxBackoff": "0.2s",
                    "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE"],
                },
            }
        ]
    }
)


def channel(address: str) -> grpc.aio.Channel:
    """An aio channel to a peer; ``dns:///host:port`` gives round-robin over replicas.

    The token travels as call metadata (``kernel.grpc_auth.client_metadata``)."""
    options: list[tuple[str, int | str]] = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.enable_retries", 1),
        ("grpc.keepalive_time_ms", 30000),
        # Reconnect quickly after a backend restart instead of backing off for minutes:
        # a refused loopback connect costs microseconds, and the gateway's first call
        # after a restart waits (gateway.prompt_context.reconnecting) at most one backoff.
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 300),
    ]
    if address.startswith(("dns:", "ipv4:", "ipv6:")):  # a name or list that may stand for several replicas
        options.append(("grpc.lb_policy_name", "round_robin"))
    options.append(("grpc.service_config", SERVICE_CONFIG))
    return grpc.aio.insecure_channel(address, options=options)
