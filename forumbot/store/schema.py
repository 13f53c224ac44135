"""The store's schema, as an ordered list of migrations.

``MIGRATIONS[i]`` turns a version-``i`` file into version ``i + 1``. A new file runs them
all; an older file runs the ones it lacks, each in its own transaction together with the
``schema_version`` row that records it, so a crash mid-upgrade leaves a file at a known
version. Never edit a released migration: append a new one.
"""

from __future__ import annotations

import secrets
from typing import Callable

import sqlite_utils


def _v1_posts_state_audit(db: sqlite_utils.Database) -> None:
    """Posts and their versions, thread cursors, game events, key/value meta, audit."""
    db["posts"].create(
        {
            "pid": int,
            "tid": int,
            "floor": int,
            "author": str,
            "author_uid": int,
            "posted_at": str,
            "time_precision": str,
            "first_text": str,
            "first_html": str,
            "first_seen_at": str,
            "first_json": str,
            "latest_json": str,
            "latest_hash": str,
            "latest_seen_at": str,
        },
        pk="pid",
        not_null={"tid", "posted_at", "first_json", "latest_json", "latest_hash"},
    )
    db["posts"].create_index(["tid", "floor"])
    db["post_versions"].create(
        {
            "id": int,
            "pid": int,
            "seen_at": str,
            "text": str,
            "html": str,
            "edited_by": str,
            "edited_at": str,
            "json": str,
            "hash": str,
        },
        pk="id",
        foreign_keys=[("pid", "posts", "pid")],
        not_null={"pid", "seen_at", "json", "hash"},
    )
    db["post_versions"].create_index(["pid", "id"])
    db["thread_cursors"].create(
        {
            "tid": int,
            "last_page": int,
            "last_pid": int,
            "total_pages": int,
            "ppp": int,
            "updated_at": str,
        },
        pk="tid",
    )
    db["events"].create(
        {"id": int, "day": int, "kind": str, "payload": str, "actor": str, "at": str},
        pk="id",
        not_null={"day", "kind", "payload", "actor", "at"},
    )
    db["events"].create_index(["day", "id"])
    db["meta"].create({"key": str, "value": str}, pk="key")
    db["meta"].insert({"key": "store_id", "value": secrets.token_hex(4)})
    db["audit"].create(
        {"id": int, "actor": str, "action": str, "detail": str, "at": str},
        pk="id",
        not_null={"actor", "action", "detail", "at"},
    )


def _v2_snapshots_cards(db: sqlite_utils.Database) -> None:
    """Tally/rulings snapshots per day, the card ledger and card proposals."""
    db["snapshots"].create(
        {"id": int, "kind": str, "day": int, "version": int, "hash": str, "json": str, "at": str},
        pk="id",
        not_null={"kind", "day", "version", "hash", "json", "at"},
    )
    db["snapshots"].create_index(["kind", "day", "version"], unique=True)
    db["card_proposals"].create(
        {
            "id": int,
            "day": int,
            "player": str,
            "color": str,
            "reason_code": str,
            "detail": str,
            "key": str,
            "state": str,
            "created_at": str,
            "decided_by": str,
            "decided_at": str,
            "why": str,
            "entry_id": int,
        },
        pk="id",
        not_null={"player", "color", "reason_code", "key", "state", "created_at"},
    )
    db["card_proposals"].create_index(["key"], unique=True)
    db["cards"].create(
        {
            "id": int,
            "player": str,
            "color": str,
            "points": int,
            "day": int,
            "reason": str,
            "actor": str,
            "at": str,
            "proposal_id": int,
        },
        pk="id",
        not_null={"player", "color", "reason", "actor", "at"},
    )


def _v3_outbox(db: sqlite_utils.Database) -> None:
    """The outbox of drafts and each draft's state history."""
    db["outbox"].create(
        {
            "id": int,
            "kind": str,
            "tid": int,
            "body": str,
            "original_body": str,
            "quote_pid": int,
            "edit_pid": int,
            "day": int,
            "dedupe_key": str,
            "created_at": str,
            "state": str,
            "approved_by": str,
            "approved_at": str,
            "pid": int,
            "marker": str,
            "attempts": int,
            "last_error": str,
            "published_at": str,
            "superseded_by": int,
            "updated_at": str,
        },
        pk="id",
        not_null={"kind", "tid", "body", "original_body", "created_at", "state", "marker"},
        defaults={"attempts": 0},
    )
    db["outbox"].create_index(["dedupe_key"], unique=True)
    db["outbox"].create_index(["marker"], unique=True)
    db["outbox"].create_index(["state"])
    db["outbox"].create_index(["kind", "tid", "state"])
    db["outbox_history"].create(
        {
            "id": int,
            "draft_id": int,
            "at": str,
            "from_state": str,
            "to_state": str,
            "actor": str,
            "detail": str,
        },
        pk="id",
        foreign_keys=[("draft_id", "outbox", "id")],
        not_null={"draft_id", "at", "to_state", "actor", "detail"},
    )
    db["outbox_history"].create_index(["draft_id", "id"])


def _v4_event_game_time(db: sqlite_utils.Database) -> None:
    """Each event's game time (SPEC §9: when it took effect, whatever time it was typed;
    the ``at`` column stays the time it was entered). Rows written before this version
    keep NULL: ``forumbot.game.state`` gives them the §9 default for their kind and day."""
    db["events"].add_column("game_at", str)
    db["events"].create_index(["kind", "id"])


def _v5_page_fetches(db: sqlite_utils.Database) -> None:
    """Which pages of which thread the agent read when, and the pids they carried: the
    evidence behind "the bot saw this text at that time" (``forumbot evidence``). One row
    per read of a thread (a poll, a first read, the deadline's re-read); a read that
    found exactly what the previous one of that thread found — same pages, same pids,
    nothing new or edited — extends that row (``repeat_until``, ``times``) instead of
    adding one, so an idle game adds no rows."""
    db["page_fetches"].create(
        {
            "id": int,
            "tid": int,
            "kind": str,  # "poll" | "backfill" (first read, whole thread) | "rescan" (deadline)
            "first_page": int,  # the page asked for first (the cursor's last page, or 1)
            "last_page": int,  # the last page read
            "total_pages": int,
            "started_at": str,  # the agent's clock when the read began…
            "ended_at": str,  # …and when its last page was in hand
            "repeat_until": str,  # the end of the last identical read (NULL: read once)
            "times": int,
            "pids": str,  # JSON list: every pid on the pages read, in page order
            "new_pids": str,  # JSON list: pids first seen in this read
            "edited_pids": str,  # JSON list: pids whose content changed in this read
        },
        pk="id",
        not_null={"tid", "kind", "first_page", "last_page", "started_at", "ended_at", "times", "pids"},
        defaults={"times": 1},
    )
    db["page_fetches"].create_index(["tid", "id"])


def _v6_alarms(db: sqlite_utils.Database) -> None:
    """Alarms: refusals the bot cannot fix itself (captcha, moderation, a failed login, the
    forum down…), kept until they clear. At most one active alarm per key (the partial
    unique index); a cleared alarm stays as history (``cleared_at``)."""
    db["alarms"].create(
        {
            "id": int,
            "kind": str,
            "key": str,
            "text": str,
            "raised_at": str,
            "cleared_at": str,
            "detail": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"kind", "key", "text", "raised_at", "detail"},
    )
    db.execute("CREATE UNIQUE INDEX alarms_active_key ON alarms (key) WHERE cleared_at IS NULL")
    db["alarms"].create_index(["cleared_at"])


def _v7_card_retraction(db: sqlite_utils.Database) -> None:
    """A card the director takes back stays in the ledger's history, marked; ``events``
    keeps the ids of the game events the card caused (a send-off, a badge draw), so
    taking it back takes them back too."""
    for column in ("retracted_at", "retracted_by", "retract_why", "events"):
        db.execute(f"ALTER TABLE cards ADD COLUMN {column} TEXT")


def _v8_notify(db: sqlite_utils.Database) -> None:
    """The director by forum PM (``forumbot.notify``): the PMs the bot sends, claimed then
    sent like posts (``notify_pms``); the codes it hands out for drafts and confirmations
    (``notify_codes``); which matters it has told (``notify_told``); and every message of
    the director's it has handled, with what it did (``notify_handled``: its pmid is the
    primary key, written in the transaction that applies the commands)."""
    db["notify_pms"].create(
        {
            "id": int,
            "to_uid": int,
            "purpose": str,  # notice | reply | foreign | test
            "body": str,  # the text without the marker line
            "marker": str,
            "part": int,  # 1-based, of ``parts`` (a long text goes in several PMs)
            "parts": int,
            "state": str,  # queued | sending | sent | failed | dropped
            "attempts": int,
            "attempted_at": str,  # the agent's clock when the last attempt began
            "since_pmid": int,  # the newest id of the conversation known before sending
            "pmid": int,
            "sent_at": str,
            "last_error": str,
            "detail": str,  # JSON: the matters told, the message answered
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"to_uid", "purpose", "body", "marker", "state", "created_at", "detail"},
        defaults={"attempts": 0, "part": 1, "parts": 1},
    )
    db["notify_pms"].create_index(["marker"], unique=True)
    db["notify_pms"].create_index(["state", "id"])
    db["notify_codes"].create(
        {
            "code": str,
            "kind": str,  # draft | event (an entry waiting for 确认)
            "draft_id": int,
            "payload": str,  # JSON (event: what to enter, and the state it was previewed on)
            "issued_at": str,
            "used_at": str,
            "used_by": int,  # the pmid of the director's message that used it
        },
        pk="code",
        not_null={"kind", "payload", "issued_at"},
    )
    db["notify_codes"].create_index(["draft_id"])
    db["notify_told"].create(
        {"matter": str, "key": str, "kind": str, "summary": str, "told_at": str, "pm_id": int},
        pk="matter",
        not_null={"key", "kind", "summary", "told_at"},
    )
    db["notify_handled"].create(
        {"pmid": int, "from_uid": int, "at": str, "text": str, "effect": str, "handled_at": str},
        pk="pmid",
        not_null={"from_uid", "text", "effect", "handled_at"},
    )


def _v9_state_id(db: sqlite_utils.Database) -> None:
    """The state's own random id (``Store.state_id``), written into every post's marker
    beside the game's: a state that replaced a lost database, or a copy of the game's
    config with another database, has another id, so each can tell the forum's posts of
    another state from its own (``forumbot.game.provenance``). A file upgraded to this version
    gets one now: its earlier posts are known by their outbox rows."""
    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('state_id', ?)", (secrets.token_hex(3),))


def _v10_outbox_new_threads(db: sqlite_utils.Database) -> None:
    """New threads in the outbox (issue 21: the bot opens each day's threads): the board
    a new-thread draft opens its thread in (``fid``) and the thread's subject. Its ``tid``
    is 0 until the forum names the new thread, then the thread's tid (and ``pid`` its first
    post's). Rows of other kinds keep both NULL."""
    db.execute("ALTER TABLE outbox ADD COLUMN fid INTEGER")
    db.execute("ALTER TABLE outbox ADD COLUMN subject TEXT")
    db.execute("ALTER TABLE outbox ADD COLUMN original_subject TEXT")


def _v11_nights(db: sqlite_utils.Database) -> None:
    """The nights the bot runs (``forumbot.store.nights``, SPEC §10.2–10.3): the actions as
    they arrived (append-only; retracted, never deleted), the players' PMs handled (by
    pmid), what each player was told (exactly once, by key), the nights' proposals and
    the 双身份 players' order of their two identities."""
    db["night_actions"].create(
        {"id": int, "night": int, "actor": str, "skill": str, "targets": str, "at": str, "source": str,
         "pmid": int, "text": str, "entered_by": str, "entered_at": str, "retracted_at": str, "retract_why": str},
        pk="id", not_null={"night", "actor", "skill", "targets", "at", "source", "entered_by", "entered_at"},
    )
    db["night_actions"].create_index(["night", "id"])
    db.execute("CREATE UNIQUE INDEX idx_night_actions_pmid ON night_actions (pmid) WHERE pmid IS NOT NULL")
    db["night_messages"].create(
        {"pmid": int, "from_uid": int, "player": str, "at": str, "text": str, "effect": str, "handled_at": str},
        pk="pmid", not_null={"from_uid", "player", "text", "effect", "handled_at"},
    )
    db["night_told"].create(
        {"key": str, "kind": str, "recipient": str, "pm_id": int, "told_at": str},
        pk="key", not_null={"kind", "recipient", "told_at"},
    )
    db["night_proposals"].create(
        {"id": int, "night": int, "version": int, "hash": str, "json": str, "proposed_at": str, "state": str,
         "decided_at": str, "decided_by": str, "events": str},
        pk="id", not_null={"night", "version", "hash", "json", "proposed_at", "state"},
    )
    db["night_proposals"].create_index(["night", "version"], unique=True)
    # 双身份: which of their two identities a player put first (by PM, or the director).
    db["night_orders"].create(
        {"player": str, "first": str, "at": str, "pmid": int, "entered_by": str, "entered_at": str},
        pk="player", not_null={"first", "at", "entered_by", "entered_at"},
    )


def _v12_days(db: sqlite_utils.Database) -> None:
    """The game's days (SPEC §11) as the bot keeps them: each day's start, deadline and
    change freeze (the config's calendar with the director's changes), the threads the bot
    opened (or the config named), the closing post's pid, whether the voting thread is
    locked; and the director's changes to the schedule, append-only, in the order made.
    Seeded from the config when a game opens (``forumbot.game.days``)."""
    db["days"].create(
        {
            "number": int,
            "start": str,
            "deadline": str,
            "freeze": str,
            "vote_thread": int,
            "discussion_thread": int,
            "progress_thread": int,
            "accelerated": int,
            "deadline_pid": int,
            "closing_pid": int,  # the bot's 截止 post
            "locked_at": str,  # the voting thread closed (关闭主题) by the bot
            "reopened_at": str,  # opened again because the director asked
            "updated_at": str,
        },
        pk="number",
        not_null={"start", "deadline"},
    )
    db["day_changes"].create(
        {"id": int, "day": int, "kind": str, "payload": str, "at": str, "actor": str, "why": str},
        pk="id",
        not_null={"day", "kind", "payload", "at", "actor"},
    )
    db["day_changes"].create_index(["day"])


def _v13_last_words(db: sqlite_utils.Database) -> None:
    """Last words (遗言, SPEC §10.5) by PM: one row per holder, keyed by the night before
    the morning announcement that carries them and the player — written when the bot asks
    (in the transaction that queues the PM), the words added once, never changed. Secret
    until posted: no export or log reads them."""
    db["last_words"].create(
        {"night": int, "player": str, "asked_at": str, "pm_id": int, "text": str, "pmid": int, "received_at": str,
         "late": int},
        pk=("night", "player"), not_null={"asked_at"},
    )


Migration = Callable[[sqlite_utils.Database], None]

def _v14_night_extensions(db: sqlite_utils.Database) -> None:
    """The director's extensions of one phase of one night (SPEC §10.2), append-only, in the
    order made: the night, the phase (the acting identity's code), the minutes added, with
    who, when and why. Never updated: a night's phases are always the rule set's layout
    with the config's lengths and extensions and all of these applied."""
    db["night_extensions"].create(
        {"id": int, "night": int, "phase": str, "minutes": int, "at": str, "actor": str, "why": str},
        pk="id",
        not_null={"night", "phase", "minutes", "at", "actor"},
    )
    db["night_extensions"].create_index(["night"])


MIGRATIONS: tuple[Migration, ...] = (
    _v1_posts_state_audit,
    _v2_snapshots_cards,
    _v3_outbox,
    _v4_event_game_time,
    _v5_page_fetches,
    _v6_alarms,
    _v7_card_retraction,
    _v8_notify,
    _v9_state_id,
    _v10_outbox_new_threads,
    _v11_nights,
    _v12_days,
    _v13_last_words,
    _v14_night_extensions,
)

SCHEMA_VERSION = len(MIGRATIONS)


class SchemaTooNewError(RuntimeError):
    """The file was written by a newer forumbot than this one."""


def schema_version(db: sqlite_utils.Database) -> int:
    if "schema_version" not in db.table_names():
        return 0
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return row[0] or 0


def migrate(db: sqlite_utils.Database, *, target: int = SCHEMA_VERSION) -> int:
    """Bring ``db`` up to ``target`` (default: current). Returns the version reached.

    Each step runs under ``BEGIN IMMEDIATE`` so two processes opening the same old file
    do not both upgrade it: the second waits, then sees the new version and skips.
    """
    if not 0 <= target <= SCHEMA_VERSION:
        raise ValueError(f"target schema version {target} outside 0..{SCHEMA_VERSION}")
    conn = db.conn
    # Under BEGIN IMMEDIATE like every step: a deferred transaction that looks first and
    # writes second gets SQLITE_BUSY at once (no busy wait) when another process opening
    # the same new file took the write lock in between.
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS [schema_version] ([version] INTEGER PRIMARY KEY, [applied] TEXT)")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = schema_version(db)
            if current > SCHEMA_VERSION:
                raise SchemaTooNewError(
                    f"游戏数据库的版本 {current} 比这个 forumbot 认得的（{SCHEMA_VERSION}）新；"
                    "请升级 forumbot"
                )
            if current >= target:
                conn.execute("COMMIT")
                return current
            MIGRATIONS[current](db)  # sqlite-utils nests its own writes as savepoints
            conn.execute(
                "INSERT INTO schema_version (version, applied) VALUES (?, ?)",
                (current + 1, MIGRATIONS[current].__name__),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
