"""The embedded engine's users: ``root`` (the service and operators) and ``analyst`` (read-only).

ArcadeDB keeps its users in ``config/server-users.jsonl`` (one JSON object per line, the
password as ``PBKDF2WithHmacSHA256$<iterations>$<salt>$<hash>``, the salt used as its base64
text) and its groups, with what each may do per database and type, in
``config/server-groups.json``. Both are written here before the engine starts, so the
analyst's door exists from the first start and no server command is needed:

- ``root`` is in group ``admin`` on every database: all tenants, reads and writes;
- ``analyst`` is in group ``reader`` on the service's database: it may read records of every
  type but ``ApiKey`` (key hashes), and may not create, change or delete any. Its queries stop
  after ``READ_TIMEOUT_MS``. Its password is generated once into ``analyst.password`` (0600).

The analyst reads every tenant: the engine has no per-tenant permission. Tenant-scoped graph
reads go through ``brain cypher --tenant`` (``$tenant`` bound) or a tenant key's GraphQL.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

ANALYST_USER = "analyst"
ANALYST_PASSWORD_FILE = "analyst.password"
READER_GROUP = "reader"
HIDDEN_TYPES = ("ApiKey",)  # types the reader group may not read
READ_TIMEOUT_MS = 60_000  # an analyst query's longest run
ITERATIONS = 65_536  # what ArcadeDB uses for the passwords it makes itself


def password_hash(password: str, salt: str | None = None) -> str:
    """ArcadeDB's stored form of ``password``."""
    salt = salt or base64.b64encode(secrets.token_bytes(32)).decode()
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), ITERATIONS, 32)
    return f"PBKDF2WithHmacSHA256${ITERATIONS}${salt}${base64.b64encode(digest).decode()}"


def matches(password: str, stored: str) -> bool:
    """Does ``stored`` (ArcadeDB's form) hold ``password``?"""
    try:
        _, iterations, salt, expected = stored.split("$")
        digest = hashlib.pbkdf2_hmac(
            "sha256", password.encode(), salt.encode(), int(iterations), 32
        )
    except ValueError:
        return False
    return secrets.compare_digest(base64.b64encode(digest).decode(), expected)


def secret(path: Path) -> str:
    """The password kept in ``path``, generated (0600) on first use."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(value)
    return value


def reader_group() -> dict[str, Any]:
    types: dict[str, Any] = {"*": {"access": ["readRecord"]}}
    types.update({name: {"access": []} for name in HIDDEN_TYPES})
    return {"resultSetLimit": -1, "readTimeout": READ_TIMEOUT_MS, "access": [], "types": types}


def _default_groups() -> dict[str, Any]:
    """ArcadeDB's own defaults: ``admin`` does everything, any other group nothing."""
    records = ["createRecord", "readRecord", "updateRecord", "deleteRecord"]
    admin = {
        "resultSetLimit": -1,
        "readTimeout": -1,
        "access": ["updateSecurity", "updateSchema", "updateDatabaseSettings"],
        "types": {"*": {"access": records}},
    }
    nothing = {
        "resultSetLimit": -1,
        "readTimeout": -1,
        "access": [],
        "types": {"*": {"access": []}},
    }
    return {"databases": {"*": {"groups": {"admin": admin, "*": nothing}}}, "version": 2}


def ensure_users(root: Path, root_password: str, database: str) -> None:
    """Write the reader group and the ``root`` and ``analyst`` users into the engine's
    configuration under ``root`` (the engine's root path), keeping anything else there."""
    config = root / "config"
    config.mkdir(parents=True, exist_ok=True)
    groups_path = config / "server-groups.json"
    groups = json.loads(groups_path.read_text()) if groups_path.exists() else _default_groups()
    every = groups.setdefault("databases", {}).setdefault("*", {}).setdefault("groups", {})
    if every.get(READER_GROUP) != reader_group():
        every[READER_GROUP] = reader_group()
        _write(groups_path, json.dumps(groups, indent=2))

    users_path = config / "server-users.jsonl"
    lines = users_path.read_text().splitlines() if users_path.exists() else []
    users = {u["name"]: u for u in map(json.loads, filter(str.strip, lines))}
    wanted = {
        "root": (root_password, {"*": ["admin"]}),
        ANALYST_USER: (secret(root / ANALYST_PASSWORD_FILE), {database: [READER_GROUP]}),
    }
    changed = False
    for name, (password, databases) in wanted.items():
        user = users.get(name)
        if (
            user is None
            or user.get("databases") != databases
            or not matches(password, str(user.get("password", "")))
        ):
            users[name] = {
                "name": name,
                "databases": databases,
                "password": password_hash(password),
            }
            changed = True
    if changed:
        _write(users_path, "".join(json.dumps(u) + "\n" for u in users.values()))


def _write(path: Path, text: str) -> None:
    """Replace ``path`` whole (0600: the users file holds password hashes)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
