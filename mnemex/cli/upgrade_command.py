"""``mnemex migrate`` and ``mnemex reembed``: a home brought to this mnemex, and to another embedding model.

Both open the home's stores themselves, so both refuse while the stack runs (as ``repair`` does).

- ``migrate`` runs every step that brings the home's stores to today's schema
  (``kernel.home_schema``), those the services never run at start-up included.
- ``reembed`` embeds every stored memory again with the model the embedding service is
  configured with (MNEMEX_EMBEDDING_MODEL, _BACKEND, _PRECISION), keeping each memory's id,
  text, scores and dates (``mnemex.upgrade.reembed``), and the kg's vectors from the texts the
  kg keeps (``mnemex.upgrade.reembed_kg``). It is offline, on the stores: the
  memory service keeps every vector in its search mirrors, so a reembed under it would
  serve vectors of two models; and offline it needs no new RPC and cannot race a write.
  Interrupted, it is run again and goes on where it stopped.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mnemex.cli.output import err, escape, fail, out, print_json
from mnemex.cli.settings import load_settings

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

    from kernel.config import Settings
    from mnemex.upgrade.reembed import ReembedReport
    from services.embedding.model import Encoder

app = typer.Typer()


def _refuse_while_running(settings: Settings, command: str, json_output: bool) -> None:
    from mnemex.cli.repair_command import _stack_running

    busy = _stack_running(settings)
    if busy:
        message = f"{busy}: stop it with `mnemex down`, then run `mnemex {command}` again"
        if json_output:
            print_json({"ok": False, "error": message})
        fail(message)


def _fail(message: str, json_output: bool) -> None:
    if json_output:
        print_json({"ok": False, "error": message})
    fail(message)


@app.command(epilog="Example: mnemex down && mnemex migrate && mnemex up --detach")
def migrate(json_output: bool = typer.Option(False, "--json", help="Print the report as JSON.")) -> None:
    """Bring every store of the home to this mnemex's schema (the stack must be stopped).

    The services do this by themselves at start-up for every step that is safe there; this
    command also runs the steps they leave to you, and says what each store is at."""
    from kernel import home_schema
    from kernel.store_health import StoreUnreadable

    settings = load_settings()
    _refuse_while_running(settings, "migrate", json_output)
    try:
        ran = home_schema.migrate_home(settings.home)
    except StoreUnreadable as exc:
        _fail(str(exc), json_output)
        return
    schema = home_schema.read_schema(settings.home)
    if json_output:
        print_json(
            {
                "ok": True,
                "home": str(settings.home),
                "stores": schema.stores,
                "ran": {
                    store: [f"{s.version}->{s.version + 1}: {s.summary}" for s in steps] for store, steps in ran.items()
                },
            }
        )
        return
    for store, steps in ran.items():
        for step in steps:
            out.print(f"{store}: schema {step.version} -> {step.version + 1}: {escape(step.summary)}")
        out.print(f"{store}: at schema {schema.stores[store]}" + ("" if steps else " (nothing to do)"))


def _encoder() -> Encoder:
    from services.embedding.model import load_encoder
    from services.embedding.settings import EmbeddingSettings

    settings = EmbeddingSettings.from_env()
    return load_encoder(settings.model_path, settings.device, settings.backend, settings.threads, settings.precision)


@app.command(epilog="Example: mnemex down && MNEMEX_EMBEDDING_MODEL=/models/all-mpnet-base-v2 mnemex reembed")
def reembed(
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON (no progress bar)."),
) -> None:
    """Embed every stored memory again with the configured embedding model (the stack must be stopped).

    Run it after changing MNEMEX_EMBEDDING_MODEL: vectors of two models cannot be compared,
    so search finds old memories by meaning again only after this. Ids, texts, scores and
    dates are kept; each collection is swapped only once all its memories are embedded, and
    an interrupted reembed goes on when run again. The kg's known problems are embedded again
    from the texts they keep."""
    from kernel import home_schema
    from kernel.store_health import StoreUnreadable
    from services.memory.settings import MemorySettings
    from services.memory.storage.chroma_store import open_client

    settings = load_settings()
    if settings.chroma_url:
        _fail("reembed works on the embedded Chroma store; MNEMEX_CHROMA_URL points at a Chroma server", json_output)
    _refuse_while_running(settings, "reembed", json_output)
    try:
        memory_settings = MemorySettings.from_env()
        encoder = _encoder()
    except Exception as exc:  # a model that does not load: say which, never a traceback
        _fail(f"the embedding model did not load: {exc}", json_output)
        return
    if int(encoder.dimension) != memory_settings.vector_dim:
        _fail(
            f"{encoder.model_id} makes {encoder.dimension}-dimensional vectors but the memory service expects "
            f"{memory_settings.vector_dim}: set MNEMEX_MEMORY_VECTOR_DIM={encoder.dimension} (for `mnemex up` too) "
            "and run `mnemex reembed` again; nothing was changed",
            json_output,
        )
    try:
        home_schema.ensure_current(settings.home, "memory", manual=True)  # the layout the record belongs to
        home_schema.ensure_current(settings.home, "kg", manual=True)  # the journal its vectors are written to
        client = open_client(settings.home, None)
    except StoreUnreadable as exc:
        _fail(str(exc), json_output)
        return
    report = _run(client, settings.home, encoder, memory_settings.max_embed_chars, show=not json_output)
    if json_output:
        print_json({"ok": True, "home": str(settings.home), **report.as_json()})
        return
    before = f" (were {report.previous})" if report.previous is not None else ""
    out.print(
        f"embedded {report.memories} memories in {report.collections} collections with {report.model}{escape(before)}"
    )
    kg = report.kg
    if kg.books or kg.already_done:
        out.print(
            f"embedded {kg.vectors.reembedded} kg vectors again (known problems, open episodes, tool errors) "
            f"in {kg.books} users' episode books"
        )
    if kg.vectors.dropped:
        out.print(
            f"dropped {kg.vectors.dropped} kg vectors whose text the kg does not keep (a known problem's rewordings); "
            "recognition goes on from its statement, error lines and terms"
        )
    if report.already_done or kg.already_done:
        out.print(
            f"went on from an interrupted reembed ({report.already_done} collections and {kg.already_done} "
            "episode books were already done)"
        )


def _run(client: ClientAPI, home: Path, encoder: Encoder, max_chars: int, *, show: bool) -> ReembedReport:
    """``client``: the home's Chroma client (``open_client``)."""
    from mnemex.upgrade.reembed import reembed_home

    bar = Progress(
        TextColumn("reembed"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("memories"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not (show and err.is_terminal),
    )
    task = bar.add_task("reembed", total=None)

    def progress(done: int, total: int) -> None:
        bar.update(task, completed=done, total=max(total, 1))

    with bar:
        return reembed_home(client, home, encoder, max_chars=max_chars, progress=progress)
