"""Backfill: a client's past exchanges become memories, as if each had just been stopped.

One call takes up to 256 exchanges (``schemas.BackfillBody``):

- the project of each comes from its recorded ``cwd``, as for the live hooks (the
  route resolves one ``Caller`` per exchange; all are the same user's);
- its memory id is derived from ``(client, source_id)``: ``history_`` and 15
  decimal digits of a SHA-256 (the id format the memory service mints), so a
  replay finds the memory and stores nothing twice; observation ids add the
  tool use's position;
- tool uses become observations through the PostToolUse filter
  (``observations.observe``); an exact repeat within one call is kept once;
- one memory ``Backfill`` RPC redacts, checks which ids exist, embeds every
  new text in one embedding call and writes in bulk;
- the knowledge graph is taught each new exchange the way a scored one teaches
  it (``teaching.teach``: concepts of the prompt -> working, the exchange as
  the problem's doc) with outcome ``unknown``: history says nothing of success,
  so routing weights and solution rates stay neutral. Best effort.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections import Counter
from collections.abc import Sequence

import grpc

from gateway.caller import Caller
from gateway.replies.backfill_replies import BackfillTally, ProjectTally
from gateway.rpc import Rpc
from gateway.schemas import BackfillExchange
from gateway.tool_observations import observe
from kernel.config import Settings
from kernel.privacy import redact
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

log = logging.getLogger("mnemex.gateway.backfill")

UID_SPACE = 10**15  # services.memory.domain.naming: new uids are 15 decimal digits
BACKFILL_TIMEOUT = 120.0  # one call embeds and writes up to ~13,000 texts
KG_TEXT_CHARS = 20_000
KG_IN_FLIGHT = 32
KG_TIMEOUT = 5.0


def backfill_id(client: str, source_id: str, part: str = "") -> str:
    """``history_<15 digits>``, a function of the exchange's identity alone (collision odds ~n²/2e15).

    Imported history is stored in the history collection (docs/BACKFILL.md, "Where imported history lives")."""
    digest = hashlib.sha256(f"mnemex-backfill\0{client}\0{source_id}\0{part}".encode()).digest()
    return f"history_{int.from_bytes(digest[:8], 'big') % UID_SPACE:015d}"


class BackfillService:
    def __init__(self, rpc: Rpc, settings: Settings) -> None:
        self.rpc = rpc
        self.settings = settings

    async def backfill(
        self, exchanges: Sequence[tuple[Caller, BackfillExchange]], *, dry_run: bool = False
    ) -> BackfillTally:
        """Store past exchanges (each with the caller its ``cwd`` resolved to) and their observations;
        counts per project (see the module doc)."""
        request = mem_pb.BackfillRequest(dry_run=dry_run)
        project_of: dict[str, str] = {}
        exchange_of: dict[str, tuple[BackfillExchange, common_pb.Scope]] = {}
        user = ""
        for caller, exchange in exchanges:
            user = caller.user
            mem_scope = caller.scope
            started = exchange.started_at.isoformat()
            item_id = backfill_id(exchange.client, exchange.source_id)
            project_of[item_id] = mem_scope.project
            exchange_of[item_id] = (exchange, mem_scope)
            request.exchanges.append(
                mem_pb.BackfillItem(
                    scope=mem_scope,
                    id=item_id,
                    session_id=exchange.session_id,
                    created_at=started,
                    user_text=exchange.user_text,
                    assistant_text=exchange.assistant_text,
                )
            )
            seen: set[str] = set()
            for index, use in enumerate(exchange.tool_uses):
                found = observe(use.tool_name, use.tool_input, use.tool_response, exchange.cwd or None)
                if found is None or found.text in seen:
                    continue
                seen.add(found.text)
                metadata = {"type": "observation", "kind": found.kind, "files": ",".join(found.files)}
                request.observations.append(
                    mem_pb.BackfillItem(
                        scope=mem_scope,
                        id=backfill_id(exchange.client, exchange.source_id, f"tool:{index}"),
                        session_id=exchange.session_id,
                        created_at=started,
                        content=found.text,
                        metadata_json=json.dumps(metadata),
                    )
                )
        # One user's items per call (one caller resolver, one authenticated user): one shard answers them all.
        reply: mem_pb.BackfillResponse = await self.rpc.unary(
            "memory", self.rpc.memory(user).Backfill, request, BACKFILL_TIMEOUT
        )
        stored = [i for i in reply.stored_ids if i in exchange_of]
        existing = [i for i in reply.existing_ids if i in exchange_of]
        new_in = Counter(project_of[i] for i in stored)
        old_in = Counter(project_of[i] for i in existing)
        taught = await self._teach_history([(i, *exchange_of[i]) for i in stored]) if not dry_run and stored else None
        return BackfillTally(
            stored=len(stored),
            existing=len(existing),
            observations=len(reply.stored_ids) - len(stored),
            projects={p: ProjectTally(new_in[p], old_in[p]) for p in dict.fromkeys([*new_in, *old_in])},
            kg_taught=taught,
        )

    async def _teach_history(self, stored: list[tuple[str, BackfillExchange, common_pb.Scope]]) -> int:
        """RecordOutcome(unknown) per new exchange with a prompt, at most ``KG_IN_FLIGHT`` at once."""
        gate = asyncio.Semaphore(KG_IN_FLIGHT)

        async def teach_one(memory_id: str, exchange: BackfillExchange, scope: common_pb.Scope) -> bool:
            problem = redact(exchange.user_text).strip()[:KG_TEXT_CHARS]
            if not problem:
                return False
            request = kg_pb.RecordOutcomeRequest(
                scope=scope,
                collections=["working"],
                doc_ids=[memory_id],
                outcome=common_pb.OUTCOME_UNKNOWN,
                problem=problem,
            )
            async with gate:
                try:
                    await self.rpc.call(self.rpc.kg(scope.user).RecordOutcome, request, KG_TIMEOUT)
                except grpc.aio.AioRpcError as exc:
                    log.info("kg not taught from history: %s %s", exc.code().name, exc.details())
                    return False
            return True

        done = await asyncio.gather(*(teach_one(*item) for item in stored))
        return sum(done)
