"""Per-user tokens for a shared gateway: ``mnemex tokens add USER``.

Each token maps to one user on the server side (``gateway/user_tokens.py``):
a request made with it reaches only that user's memories. The gateway reads the
file named by ``MNEMEX_USER_TOKENS`` and notices changes within seconds.
"""

from __future__ import annotations

from pathlib import Path

import typer

from gateway.errors import InvalidInput
from gateway.user_tokens import add_token
from mnemex.cli.output import fail, out, print_json
from mnemex.cli.settings import load_settings

group = typer.Typer(name="tokens", help="Per-user tokens for a gateway that several users share.")
app = typer.Typer()
app.add_typer(group, name="tokens")


@group.command("add")
def add(
    user: str = typer.Argument(..., help="the user id the token acts as"),
    file: Path | None = typer.Option(
        None, "--file", help="tokens file (default: MNEMEX_USER_TOKENS, else <home>/user_tokens)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Create a token for USER; it is printed once and only its SHA-256 digest is stored."""
    settings = load_settings()
    path = file or settings.user_tokens_file or settings.home / "user_tokens"
    try:
        token = add_token(path, user)
    except InvalidInput as exc:
        fail(exc.message)
    except OSError as exc:
        fail(f"cannot write the tokens file {path}: {exc.strerror or exc}")
    if as_json:
        print_json({"user": user, "token": token, "file": str(path)})
        return
    out.print(f"token for [bold]{user}[/bold] (shown only now; give it to {user}):")
    out.print(token, markup=False, highlight=False)
    out.print(f"the gateway needs MNEMEX_USER_TOKENS={path}")
