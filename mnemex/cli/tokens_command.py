"""Per-user tokens for a shared gateway: ``mnemex tokens add|list|revoke``.

Each token maps to one user on the server side (``gateway/user_tokens.py``):
a request made with it reaches only that user's memories. The gateway reads the
file named by ``MNEMEX_USER_TOKENS`` and sees every change on the next request,
so a revoked token is refused at once, without a restart.
"""

from __future__ import annotations

from pathlib import Path

import typer

from gateway.gateway_errors import InvalidInput
from gateway.user_tokens import TokensFileError, add_token, list_tokens, revoke
from mnemex.cli.output import fail, out, print_json
from mnemex.cli.settings import load_settings

group = typer.Typer(name="tokens", help="Per-user tokens for a gateway that several users share.")
app = typer.Typer()
app.add_typer(group, name="tokens")


FILE_OPTION_HELP = "tokens file (default: MNEMEX_USER_TOKENS, else <home>/user_tokens)"


def _tokens_file(file: Path | None) -> Path:
    settings = load_settings()
    return file or settings.user_tokens_file or settings.home / "user_tokens"


@group.command("add")
def add(
    user: str = typer.Argument(..., help="the user id the token acts as"),
    file: Path | None = typer.Option(None, "--file", help=FILE_OPTION_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Create a token for USER; it is printed once and only its SHA-256 digest is stored."""
    path = _tokens_file(file)
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


@group.command("list")
def list_command(
    file: Path | None = typer.Option(None, "--file", help=FILE_OPTION_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Show each token's user and when it was added (never a token nor its digest)."""
    path = _tokens_file(file)
    if not path.exists():
        entries = []
    else:
        try:
            entries = list_tokens(path)
        except TokensFileError as exc:
            fail(f"{exc}; fix or remove that line (the gateway accepts no user token meanwhile)")
    if as_json:
        print_json({"file": str(path), "tokens": [{"user": e.user, "added": e.added or None} for e in entries]})
        return
    if not entries:
        out.print(f"no user tokens in {path} (add one with 'mnemex tokens add USER')", markup=False)
        return
    for entry in entries:
        out.print(f"{entry.user}  added {entry.added or '(date not recorded)'}", markup=False, highlight=False)


@group.command("revoke")
def revoke_command(
    user: str = typer.Argument(..., help="the user whose tokens stop working"),
    file: Path | None = typer.Option(None, "--file", help=FILE_OPTION_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Remove every token of USER; the gateway refuses them from its next request on."""
    path = _tokens_file(file)
    try:
        removed = revoke(path, user)
    except TokensFileError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot rewrite the tokens file {path}: {exc.strerror or exc}")
    if not removed:
        fail(f"no token for user {user!r} in {path} (see 'mnemex tokens list')")
    if as_json:
        print_json({"user": user, "revoked": removed, "file": str(path)})
        return
    out.print(f"revoked {removed} token(s) of {user}; the gateway refuses them from its next request", markup=False)
