"""``mnemex repair``: salvage broken stores into fresh ones; the originals are set aside, never deleted."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from mnemex.cli.output import EXIT_USAGE, escape, fail, out, print_json
from mnemex.cli.settings import load_settings

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from kernel.config import Settings
    from mnemex.repair.stores import StoreRepair
    from services.embedding.model import Encoder

app = typer.Typer()


def _embedder() -> Callable[[list[str]], npt.NDArray[np.float32]]:
    """Embeds documents whose old vectors are lost, with the model the embedding service uses (loaded once)."""
    loaded: list[Encoder] = []

    def embed(texts: list[str]) -> npt.NDArray[np.float32]:
        if not loaded:
            from services.embedding.model import load_encoder
            from services.embedding.settings import EmbeddingSettings

            settings = EmbeddingSettings.from_env()
            loaded.append(
                load_encoder(
                    settings.model_path, settings.device, settings.backend, settings.threads, settings.precision
                )
            )
        return loaded[0].encode(texts)

    return embed


def _stack_running(settings: Settings) -> str | None:
    """Why the stores are in use right now, or None."""
    from mnemex.supervisor.probes import port_accepts
    from mnemex.supervisor.state import RunPaths, running_supervisor_pid

    pid = running_supervisor_pid(RunPaths(settings.home))
    if pid is not None:
        return f"the stack is running for {settings.home} (supervisor pid {pid})"
    for name in ("memory", "kg"):
        if port_accepts(settings.addr_of(name), timeout=0.2):
            return f"something answers at the {name} service's address {settings.addr_of(name)}"
    return None


@app.command(epilog="Example: mnemex down && mnemex repair --json")
def repair(
    store: list[str] = typer.Option(
        [], "--store", "-s", help="Only this store (repeatable): chroma, kg, state. Default: every broken one."
    ),
    force: bool = typer.Option(False, "--force", help="Rebuild the named stores even when they read fine."),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Salvage what broken stores still hold into fresh ones (run `mnemex doctor` first to see what is broken).

    Each broken store is renamed to <name>.corrupt-<UTC time> (never deleted), and
    every row that can still be read goes into a fresh store at the original path;
    the report says what could not be kept. Memories whose vectors are lost are
    embedded again with the local model. A store this user may not open is left
    where it is, with the chmod/chown that fixes it. The stack must be stopped
    (`mnemex down`).
    """
    from mnemex.repair.stores import STORES, as_json
    from mnemex.repair.stores import repair as repair_stores

    unknown = [name for name in store if name not in STORES]
    if unknown:
        fail(f"unknown store {unknown[0]!r}: choose from {', '.join(STORES)}", code=EXIT_USAGE)
    settings = load_settings()
    from mnemex.repair.access import home_problem

    blocked = home_problem(settings.home)
    if blocked is not None:  # before anything reads the home (the supervisor's lock, the stores)
        message = blocked.message("the mnemex home")
        if json_output:
            print_json({"ok": False, "error": message, "fix": blocked.fix, "stores": []})
        fail(message)
    busy = _stack_running(settings)
    if busy:
        message = f"{busy}: stop it with `mnemex down`, then run `mnemex repair` again"
        if json_output:
            print_json({"ok": False, "error": message, "stores": []})
        fail(message)
    chosen = tuple(name for name in STORES if not store or name in store)
    try:
        results = repair_stores(settings.home, chosen, embed=_embedder(), force=force)
    except OSError as exc:  # a folder it may not list or rename: name it, never a traceback
        where = exc.filename or settings.home
        message = f"repair stopped: {exc.strerror or exc} ({where}); check its owner and mode (`ls -ld {where}`)"
        if json_output:
            print_json({"ok": False, "error": message, "stores": []})
        fail(message)
    failed = [r for r in results if (r.problem is not None or force) and not r.repaired]
    if json_output:
        print_json({"ok": not failed, "home": str(settings.home), "stores": as_json(results)})
    else:
        _print_report(results)
    if failed:
        raise typer.Exit(1)


def _print_report(results: list[StoreRepair]) -> None:
    for result in results:
        if result.set_aside is None:
            if result.problem is None:
                state = "ok, left alone"
            elif result.fix is not None:
                state = f"NOT repaired: {result.problem}"
            elif result.repaired:
                state = f"{result.problem}: {'; '.join(result.errors)}"
            else:
                state = f"broken, not repaired: {result.problem}"
            out.print(f"{result.store}: {escape(state)}")
            if result.fix is not None:
                out.print(f"  fix: {escape(result.fix)}")
            continue
        verdict = "repaired" if result.repaired else "NOT repaired"
        out.print(f"{result.store}: {verdict}: {escape(result.problem or 'rebuilt (--force)')}")
        out.print(f"  salvaged {result.rows_salvaged} rows into a fresh {escape(result.path)}")
        out.print(f"  the original is kept as {escape(result.set_aside)}")
        for error in result.errors:
            out.print(f"  could not read: {escape(error)}")
        for line in result.lost:
            out.print(f"  could not keep: {escape(line)}")
    if not any(r.set_aside or r.repaired or r.problem for r in results):
        out.print("nothing to repair: every store reads fine")
