"""``corescheduler token add``: a new token for the service's tokens file (SPEC §8b)."""

from __future__ import annotations

import os
from pathlib import Path

import click


@click.group()
def token() -> None:
    """Manage the service's tokens file (it stores hashes, never tokens)."""


@token.command("add")
@click.argument("user")
@click.option("--admin", is_flag=True, help="The token's user is an admin (may act on every job).")
@click.option("--group", "groups", multiple=True, metavar="G", help="A group of the user (repeatable).")
@click.option("--tokens", "path", default=lambda: os.environ.get("CORESCHEDULER_TOKENS", "tokens.toml"),
              show_default="$CORESCHEDULER_TOKENS or tokens.toml", metavar="FILE",
              help="The tokens file; created 0600 if missing.")
def add(user: str, admin: bool, groups: tuple[str, ...], path: str) -> None:
    """Print a new random token for USER once and append its hash to the tokens file."""
    from corescheduler.service.tokens import add_token

    secret, warnings = add_token(Path(path), user, groups, admin)
    for line in warnings:
        click.echo(f"warning: {line}", err=True)
    click.echo(secret)
    click.echo(f"added a token for {user} to {path}; it is shown only now", err=True)
