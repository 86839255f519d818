"""Gang learning: the learned-data store in a PostgreSQL database shared by engines on many
machines (`learn store postgresql://user@host/db`). What one engine learns, the others see at
their next book probe: every read is its own short transaction.

The SQL is LearnedStore's; only the connection, the placeholder and the serial column differ.
Writes are serialised per store by a transaction-scoped advisory lock, as SQLite's BEGIN
IMMEDIATE serialises them per file: a game's learning touches many rows (and trims the position
queue), and with one writer at a time no two games can deadlock on each other's rows or race
on a position key, while readers never wait.

psycopg (version 3) is imported only when a PostgreSQL store is used, so the engine runs
without it; `pip install "ponderosa[postgres]"` brings it.
"""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ponderosa.engine.learning.store import LearnedStore, LearnedStoreError

CONNECT_TIMEOUT_SECONDS = 10
INSTALL_HINT = 'pip install "ponderosa[postgres]"'
# The advisory lock's key: one per schema, so stores in different schemas of one database
# (the tests use one schema each) do not wait for each other.
WRITE_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('ponderosa-learned:' || coalesce(current_schema(), '')))"
PASSWORD_PARAMETER = re.compile(r"(?i)((?:^|&)password=)[^&]*")


def redacted_url(url: str) -> str:
    """The URL without its password (in the user part or as a password= parameter), for
    messages and for `learn` to show."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"//[^/@]*@", "//***@", url)
    userinfo, at, hosts = parts.netloc.rpartition("@")
    netloc = parts.netloc
    if at and ":" in userinfo:
        netloc = f"{userinfo.split(':', 1)[0]}:***@{hosts}"
    query = PASSWORD_PARAMETER.sub(r"\1***", parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class PostgresLearnedStore(LearnedStore):
    """The learned data in a PostgreSQL database; the tables are created on first use."""

    placeholder = "%s"
    serial_column = "BIGSERIAL PRIMARY KEY"

    def __init__(self, url: str) -> None:
        super().__init__(redacted_url(url))
        self._url = url

    def _open(self, create: bool) -> Any:
        try:
            import psycopg
        except ImportError as error:
            raise LearnedStoreError(f"{self.location}: a PostgreSQL learned-data store needs psycopg, "
                                    f"which is not installed: {INSTALL_HINT}") from error
        try:
            settings = psycopg.conninfo.conninfo_to_dict(self._url)
        except psycopg.Error as error:
            raise LearnedStoreError(f"{self.location}: not a usable PostgreSQL URL "
                                    f"({self._scrub(str(error))})") from error
        settings.setdefault("connect_timeout", CONNECT_TIMEOUT_SECONDS)
        settings.setdefault("application_name", "ponderosa")
        try:
            return psycopg.connect(psycopg.conninfo.make_conninfo("", **settings))
        except psycopg.Error as error:
            raise LearnedStoreError(f"{self.location}: cannot connect to the PostgreSQL server "
                                    f"({self._scrub(str(error))})") from error

    def _begin(self, connection: Any) -> None:
        # psycopg opens the transaction with this first statement; the lock is held until commit
        # or rollback. Schema creation goes through here too, so engines starting at once
        # cannot race on CREATE TABLE.
        connection.execute(WRITE_LOCK_SQL)

    def _error(self, error: Exception) -> LearnedStoreError:
        detail = self._scrub(str(error).strip())
        if self._connection is None or getattr(self._connection, "broken", False) or \
                getattr(self._connection, "closed", False):
            return LearnedStoreError(f"{self.location}: lost the connection to the PostgreSQL server ({detail})")
        return LearnedStoreError(f"{self.location}: learned data cannot be used ({detail})")

    def _scrub(self, text: str) -> str:
        """One line for the console; server and libpq messages do not quote passwords, but make
        sure none slips through."""
        password = _password_of(self._url)
        if password:
            text = text.replace(password, "***")
        return " ".join(text.split())


def _password_of(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    userinfo = parts.netloc.rpartition("@")[0]
    if ":" in userinfo:
        return userinfo.split(":", 1)[1]
    match = re.search(r"(?i)(?:^|&)password=([^&]*)", parts.query)
    return match.group(1) if match else ""
