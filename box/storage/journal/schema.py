"""The journal's tables, its version marks and what the judge requires of them."""

from __future__ import annotations

VERSION = 2  # PRAGMA user_version of the journals this version writes (0: written before versions; 2: checkpoints)
APPLICATION_ID = 0x47425831  # PRAGMA application_id: "GBX1", this file is a Gravebox journal
PROBE = "journal.probe"
SQLITE_MAGIC = b"SQLite format 3\x00"
CACHE_KIB = 256  # SQLite's page cache: a box reads the journal's tail, so more would only grow the RSS

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    decks TEXT,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    seq INTEGER PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id),
    action TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS box (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""
INDEX = "CREATE INDEX IF NOT EXISTS actions_by_game ON actions (game, seq)"
CHECKPOINTS = """CREATE TABLE IF NOT EXISTS checkpoints (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    count INTEGER NOT NULL,
    version TEXT NOT NULL,
    state BLOB NOT NULL,
    PRIMARY KEY (game, seq)
)"""
COLUMNS = {
    "games": {"id", "name", "players", "options", "decks", "finished"},
    "actions": {"seq", "game", "action", "undone"},
    "box": {"key", "value"},
}
"""The tables that hold the truth, and the columns the box reads: a journal without them is damaged."""
CHECKPOINT_COLUMNS = [
    ("game", "INTEGER", 1, 1),
    ("seq", "INTEGER", 1, 2),
    ("count", "INTEGER", 1, 0),
    ("version", "TEXT", 1, 0),
    ("state", "BLOB", 1, 0),
]
"""The checkpoints table exactly, as PRAGMA table_info says it (name, type, not null, place in the key):
any other is rebuilt, never taken for damage of the journal."""
