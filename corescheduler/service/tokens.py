"""The service's tokens file (SPEC §8b): hashes, never tokens; constant-time checks.

``[tokens."sha256:<hex>"]`` tables (the hex of SHA-256 of the token) with ``user``,
``groups`` and ``admin``.  ``corescheduler token add`` makes a random token, prints it
once and appends its hash, so the file holds nothing a reader could present.  A table
keyed by a plain token still loads, with a warning naming its line (never the token).

A presented token is hashed and compared with :func:`hmac.compare_digest` against every
stored hash, with no early exit: the time taken says nothing about how close a guess was,
nor which entry matched.  This module needs no service extra (``token add`` runs without it).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pwd
import re
import secrets
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path

from attrs import frozen

from corescheduler.errors import ConfigError

PREFIX = "sha256:"
_HASHED = re.compile(r"^sha256:[0-9a-fA-F]{64}$")
#: a token's table header: [tokens."KEY"], [tokens.'KEY'] or [tokens.KEY] (for the warning's line)
_HEADER = re.compile(r"""^\s*\[\s*tokens\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*\]""")
#: the longest user or group name, and what may not be in one
MAX_NAME = 200
_BAD_NAME = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")


@frozen
class Principal:
    """Who is asking."""

    user: str
    groups: tuple[str, ...] = ()
    admin: bool = False


def hash_token(token: str) -> str:
    """``sha256:<hex>``: what the tokens file stores for ``token``."""
    return PREFIX + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class TokenTable:
    """The principals by token hash; :meth:`lookup` checks a presented token."""

    def __init__(self, entries: Mapping[str, Principal] | None = None, warnings: list[str] | None = None) -> None:
        #: (digest bytes, principal), in file order
        self._entries: list[tuple[bytes, Principal]] = []
        self.warnings: list[str] = list(warnings or [])
        for key, who in (entries or {}).items():
            self.add(key, who)

    @classmethod
    def from_plain(cls, tokens: Mapping[str, Principal]) -> TokenTable:
        """A table from plain tokens (for tests and embedding)."""
        return cls({hash_token(secret): who for secret, who in tokens.items()})

    def add(self, key: str, who: Principal) -> None:
        """``key``: ``sha256:<hex>`` (or a plain token, hashed here)."""
        digest = bytes.fromhex(key[len(PREFIX):]) if _HASHED.match(key) else bytes.fromhex(hash_token(key)[7:])
        self._entries.append((digest, who))

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, token: str | None) -> Principal | None:
        """The principal of ``token``, or None.  Constant time in the token: every stored
        digest is compared (``hmac.compare_digest``), whether or not one already matched."""
        if not token:
            return None
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        found = None
        for stored, who in self._entries:
            if hmac.compare_digest(stored, digest):
                found = who
        return found

    def matches(self, text: str) -> bool:
        """Whether ``text`` is a valid token (for redacting log lines)."""
        return self.lookup(text) is not None


def check_name(value: object, what: str) -> str:
    """A user or group name: a non-empty string of at most 200 characters without control
    characters or lone surrogates."""
    if not isinstance(value, str) or not value or len(value) > MAX_NAME or _BAD_NAME.search(value):
        raise ValueError(f"{what}: expected a name of 1 to {MAX_NAME} characters without control characters")
    return value


def load_tokens(path: str | Path) -> TokenTable:
    """``--tokens FILE``: ``[tokens."sha256:<hex>"]`` tables with ``user``, ``groups``, ``admin``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the tokens file: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    tokens = data.get("tokens", {})
    if not isinstance(tokens, Mapping) or set(data) - {"tokens"}:
        raise ConfigError(f"{path}: expected only [tokens.\"sha256:<hex>\"] tables")
    lines = _header_lines(text)
    table = TokenTable()
    seen: set[bytes] = set()
    for key, entry in tokens.items():
        line = lines.get(key)
        where = f"{path}:{line}" if line else str(path)
        hashed = key.startswith(PREFIX)
        label = f"[tokens.\"{key}\"]" if hashed else "[tokens.\"…\"]"  # a plain token is never repeated
        if hashed and not _HASHED.match(key):
            raise ConfigError(f"{where}: {label}: expected sha256: and 64 hex digits")
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: {label}: expected a table with user = \"name\"")
        unknown = set(entry) - {"user", "groups", "admin"}
        if unknown:
            raise ConfigError(f"{where}: {label}: unknown key {sorted(unknown)[0]!r}; expected user, groups, admin")
        try:
            user = check_name(entry.get("user"), "user")
        except ValueError:
            raise ConfigError(f"{where}: {label}: expected user = \"name\" (1 to {MAX_NAME} characters, "
                              "no control characters)") from None
        groups = entry.get("groups", [])
        if not isinstance(groups, list) or not all(isinstance(g, str) and g and not _BAD_NAME.search(g)
                                                   for g in groups):
            raise ConfigError(f"{where}: {label}: groups: expected a list of names")
        admin = entry.get("admin", False)
        if not isinstance(admin, bool):
            raise ConfigError(f"{where}: {label}: admin: expected true or false")
        if not hashed:
            if len(key) < 8:
                raise ConfigError(f"{where}: {label}: a token must be at least 8 characters")
            table.warnings.append(f"{where}: a plain token (not its sha256: hash); anyone who reads this file "
                                  "can use it: replace it with `corescheduler token add`")
        digest = bytes.fromhex(key[len(PREFIX):]) if hashed else bytes.fromhex(hash_token(key)[len(PREFIX):])
        if digest in seen:
            raise ConfigError(f"{where}: {label}: the same token twice")
        seen.add(digest)
        table.add(key, Principal(user, tuple(groups), admin))
    return table


def _header_lines(text: str) -> dict[str, int]:
    """Each ``[tokens.KEY]`` header's key -> its line number (1-based)."""
    out: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = _HEADER.match(line)
        if m is None:
            continue
        if m.group(1) is not None:
            try:
                key = tomllib.loads(f'k = "{m.group(1)}"')["k"]
            except tomllib.TOMLDecodeError:
                continue
        else:
            key = m.group(2) if m.group(2) is not None else m.group(3)
        out.setdefault(key, number)
    return out


def readable_by_others(path: Path) -> str | None:
    """The ``chmod`` that makes ``path`` private when group or others may read it — or write
    it (a writable tokens file takes a new admin; a writable state directory a new ledger);
    else None."""
    mode = path.stat().st_mode
    if not mode & (stat.S_IRGRP | stat.S_IROTH | stat.S_IWGRP | stat.S_IWOTH):
        return None
    return f"chmod {'700' if stat.S_ISDIR(mode) else '600'} {path}"


def check_owner(path: Path, what: str) -> None:
    """Refuse (one error naming the file and the ``chown`` that fixes it) ``path`` owned by
    another user than the service's own: its owner (the ``run_as`` account, say) could
    replace it, whatever its mode."""
    try:
        owner = path.stat().st_uid
    except OSError as exc:
        raise ConfigError(f"{what} {path}: {exc.strerror}") from None
    me = os.geteuid()
    if owner == me:
        return

    def name(uid: int) -> str:
        try:
            return pwd.getpwuid(uid).pw_name
        except KeyError:
            return str(uid)

    raise ConfigError(f"{what} {path} is owned by {name(owner)}, not by the service's own user ({name(me)}), "
                      f"who alone may change it; the service refuses to start: chown {name(me)} {path}")


def check_private(path: Path, what: str) -> None:
    """Refuse (one error naming the file and the fix) ``path`` owned by another user than the
    service's, or readable or writable by group or others."""
    check_owner(path, what)
    try:
        fix = readable_by_others(path)
    except OSError as exc:
        raise ConfigError(f"{what} {path}: {exc.strerror}") from None
    if fix is not None:
        mode = stat.S_IMODE(path.stat().st_mode)
        raise ConfigError(f"{what} {path} is readable or writable by group or others (mode {mode:04o}); "
                          f"the service refuses to start: {fix}")


def add_token(path: Path, user: str, groups: tuple[str, ...] = (), admin: bool = False) -> tuple[str, list[str]]:
    """A new random token for ``user``: its hash appended to ``path`` (created 0600).  The
    token (shown once, never stored) and any warnings about the file."""
    try:
        check_name(user, "user")
        for g in groups:
            check_name(g, "--group")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    warnings: list[str] = []
    if path.exists():
        load_tokens(path)  # a broken file is not appended to
        fix = readable_by_others(path)
        if fix is not None:
            warnings.append(f"{path} is readable or writable by group or others; serve refuses it: {fix}")
    token = secrets.token_urlsafe(32)
    entry = [f"[tokens.\"{hash_token(token)}\"]", f"user = {_toml_str(user)}"]
    if groups:
        entry.append("groups = [" + ", ".join(_toml_str(g) for g in groups) + "]")
    if admin:
        entry.append("admin = true")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the tokens file: {exc.strerror}") from None
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        if f.tell() > 0:
            with open(path, "rb") as r:
                r.seek(-1, os.SEEK_END)
                last = r.read(1)
            f.write("\n" if last == b"\n" else "\n\n")
        f.write("\n".join(entry) + "\n")
    return token, warnings


def _toml_str(value: str) -> str:
    """A TOML basic string (names are checked first: no control characters)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
