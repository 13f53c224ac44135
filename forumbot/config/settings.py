"""The agent's own config tables: ``[bot]``, ``[agent]``, ``[policies]`` and ``[notify]``.

The game tables (``[forum]``, ``[game]``, ``[[days]]``) are read by ``forumbot.config.gamefile``;
this module reads the rest of the same file. The password is never a config key: it
comes from ``FORUMBOT_PASSWORD`` or ``[bot].password_file`` (``forumbot.config.secrets``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import time
from pathlib import Path
from typing import Any

from forumbot.config.gamefile import ConfigError, GameConfig, register_table
from forumbot.discuz.useragent import DEFAULT_USER_AGENT, user_agent_problem
from forumbot.store.outbox import DEFAULT_POLICIES, DraftKind, Policy

BOT_KEYS = {"username", "password_file", "cookie_file", "question_id", "answer_env", "use_api",
            "password_md5", "user_agent"}
AGENT_KEYS = {
    "database", "poll_interval_seconds", "poll_jitter_seconds", "min_request_interval_seconds",
    "running_count_interval_minutes", "running_count_edit_in_place", "count_request_word",
    "count_request_interval_minutes", "count_request_max_age_minutes", "templates", "log_file",
    "counts_only", "final_count_delay_minutes", "outage_alarm_minutes", "edit_sweep_minutes",
    "board_listing",
}
NOTIFY_KEYS = {"enabled", "director_uid", "director", "kinds", "min_interval_seconds", "quiet_hours", "short_name",
               "commands", "others_check_minutes", "answer_others"}
# What the bot may tell the director by PM (``forumbot.game.attention`` kinds, and the recovery
# from an outage); the default leaves out card proposals and stale published posts, which
# do not hold the game up (the desk and `forumbot status` show them).
NOTIFY_KINDS = ("alarm", "final_count", "failed", "approval", "night_result", "successor",
                "card_proposal", "stale_published", "recovery")
DEFAULT_NOTIFY_KINDS = frozenset(NOTIFY_KINDS) - {"card_proposal", "stale_published"}
FORBIDDEN = {"password", "passwd", "secret"}

register_table("notify")


@dataclass(frozen=True)
class BotSettings:
    username: str
    password_file: Path | None = None
    cookie_file: Path | None = None
    question_id: int = 0
    answer_env: str = "FORUMBOT_SECURITY_ANSWER"
    use_api: bool | None = None  # None: ask the forum (module=check)
    password_md5: bool = False
    user_agent: str = DEFAULT_USER_AGENT


@dataclass(frozen=True)
class AgentSettings:
    database: Path
    poll_interval_seconds: float = 60.0
    poll_jitter_seconds: float = 10.0
    min_request_interval_seconds: float = 2.0
    running_count_interval_minutes: float = 30.0
    running_count_edit_in_place: bool = True  # one running-count post per day, edited
    count_request_word: str = "计票"
    count_request_interval_minutes: float = 10.0
    count_request_max_age_minutes: float = 60.0
    templates: Path | None = None
    log_file: Path | None = None
    counts_only: bool | None = None  # None: follow the rule set's visibility
    final_count_delay_minutes: float = 5.0
    outage_alarm_minutes: float = 10.0  # the forum unreachable this long raises an alarm
    # Under ``forumbot serve``: what changed is read from the boards' thread listings (one
    # request per board per poll), and each voting thread of a day being played is read
    # again whole at least this often — edits do not move a thread in the listing.
    edit_sweep_minutes: float = 10.0
    board_listing: bool = True  # false: every active thread polled on its own, as before


@dataclass(frozen=True)
class NotifySettings:
    """``[notify]``: the director told by forum PM, and approving by reply (forumbot.notify)."""

    enabled: bool = True
    director_uid: int | None = None  # None: found from the director's posts in the game's threads
    director: str | None = None  # the director's forum name (default [game].director)
    kinds: frozenset[str] = DEFAULT_NOTIFY_KINDS
    min_interval_seconds: float = 120.0  # between two notices; what comes meanwhile waits and is batched
    quiet_hours: tuple[time, time] | None = None  # no notices then (answers to commands still go)
    commands: bool = True  # the director's replies are read and carried out
    others_check_minutes: float = 10.0  # how often the unread list is read for PMs from others
    answer_others: bool = True  # tell someone else who sends a command that it is not taken
    # Other names the director may type before a command for this game (besides its name in
    # the service, its file's or folder's): ``short_name = "二局"`` or a list.
    short_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    bot: BotSettings
    agent: AgentSettings
    policies: dict[DraftKind, Policy] = field(default_factory=dict)
    notify: NotifySettings = field(default_factory=NotifySettings)


def load_settings(config: GameConfig) -> Settings:
    raw = config.raw
    reader = _Reader(config.path)
    bot = reader.bot(reader.table(raw, "bot"), default_username=config.state.bot)
    agent = reader.agent(reader.table(raw, "agent"))
    policies = reader.policies(reader.table(raw, "policies"))
    notify = reader.notify(reader.table(raw, "notify"), default_director=config.state.director)
    return Settings(bot=bot, agent=agent, policies=policies, notify=notify)


class KeyReader:
    """Reads keys of a TOML file's tables, each refusal a ConfigError naming the file and
    the key; relative paths are relative to the file's folder. The game config's settings
    (below) and the service file (``forumbot.service.settings``) build on it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.base = path.resolve().parent

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {message}")

    def table(self, raw: dict[str, Any], name: str) -> dict[str, Any]:
        value = raw.get(name, {})
        if not isinstance(value, dict):
            raise self.fail(f"[{name}]", "应为一个表（[表名] 下面写键）")
        return value

    def known(self, table: dict[str, Any], keys: set[str], where: str) -> None:
        for key in table:
            if key.lower() in FORBIDDEN:
                raise self.fail(
                    f"{where}.{key}",
                    "密码不能写在配置里：请设置 FORUMBOT_PASSWORD，或用 "
                    "[bot].password_file（一个只有你能读的文件）",
                )
        unknown = sorted(set(table) - keys)
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}", f"未知的键（可用的键：{'、'.join(sorted(keys))}）")

    def path_value(self, table: dict[str, Any], key: str, where: str) -> Path | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.fail(f"{where}.{key}", "应为文件路径")
        path = Path(value).expanduser()
        return path if path.is_absolute() else self.base / path

    def number(self, table: dict[str, Any], key: str, where: str, default: float, *, minimum: float = 0) -> float:
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
            raise self.fail(f"{where}.{key}", f"应为 ≥ {minimum:g} 的数，实际是 {value!r}")
        return float(value)

    def flag(self, table: dict[str, Any], key: str, where: str, default: bool | None) -> bool | None:
        value = table.get(key, default)
        if value is not None and not isinstance(value, bool):
            raise self.fail(f"{where}.{key}", f"应为 true 或 false，实际是 {value!r}")
        return value



class _Reader(KeyReader):
    """The game config's [bot], [agent], [policies] and [notify] tables."""

    def bot(self, table: dict[str, Any], default_username: str | None) -> BotSettings:
        self.known(table, BOT_KEYS, "[bot]")
        username = table.get("username", default_username)
        if not isinstance(username, str) or not username.strip():
            raise self.fail("[bot].username", "缺少：机器人的论坛用户名（或设置 [game].bot）")
        question = table.get("question_id", 0)
        if isinstance(question, bool) or not isinstance(question, int) or not 0 <= question <= 7:
            raise self.fail("[bot].question_id", f"应为 0–7（Discuz 的安全提问编号），实际是 {question!r}")
        answer_env = table.get("answer_env", "FORUMBOT_SECURITY_ANSWER")
        if not isinstance(answer_env, str):
            raise self.fail("[bot].answer_env", "应为环境变量名")
        user_agent = table.get("user_agent", DEFAULT_USER_AGENT)
        if not isinstance(user_agent, str):
            raise self.fail("[bot].user_agent", f"应为文本（浏览器的 User-Agent），实际是 {user_agent!r}")
        if (problem := user_agent_problem(user_agent)) is not None:
            raise self.fail("[bot].user_agent", f"{problem}；请用电脑浏览器的 User-Agent，"
                                                "或不写这个键")
        return BotSettings(
            username=username,
            password_file=self.path_value(table, "password_file", "[bot]"),
            cookie_file=self.path_value(table, "cookie_file", "[bot]"),
            question_id=question,
            answer_env=answer_env,
            use_api=self.flag(table, "use_api", "[bot]", None),
            password_md5=bool(self.flag(table, "password_md5", "[bot]", False)),
            user_agent=user_agent.strip(),
        )

    def agent(self, table: dict[str, Any]) -> AgentSettings:
        self.known(table, AGENT_KEYS, "[agent]")
        where = "[agent]"
        database = self.path_value(table, "database", where) or self.base / "forumbot-game.sqlite"
        word = table.get("count_request_word", "计票")
        if not isinstance(word, str) or not word.strip():
            raise self.fail(f"{where}.count_request_word", "应为一个非空的词")
        return AgentSettings(
            database=database,
            poll_interval_seconds=self.number(table, "poll_interval_seconds", where, 60.0, minimum=1),
            poll_jitter_seconds=self.number(table, "poll_jitter_seconds", where, 10.0),
            min_request_interval_seconds=self.number(table, "min_request_interval_seconds", where, 2.0),
            running_count_interval_minutes=self.number(table, "running_count_interval_minutes", where, 30.0),
            running_count_edit_in_place=bool(self.flag(table, "running_count_edit_in_place", where, True)),
            count_request_word=word.strip(),
            count_request_interval_minutes=self.number(table, "count_request_interval_minutes", where, 10.0),
            count_request_max_age_minutes=self.number(table, "count_request_max_age_minutes", where, 60.0),
            templates=self.path_value(table, "templates", where),
            log_file=self.path_value(table, "log_file", where),
            counts_only=self.flag(table, "counts_only", where, None),
            final_count_delay_minutes=self.number(table, "final_count_delay_minutes", where, 5.0),
            outage_alarm_minutes=self.number(table, "outage_alarm_minutes", where, 10.0),
            edit_sweep_minutes=self.number(table, "edit_sweep_minutes", where, 10.0, minimum=1),
            board_listing=bool(self.flag(table, "board_listing", where, True)),
        )

    def policies(self, table: dict[str, Any]) -> dict[DraftKind, Policy]:
        kinds = {k.value for k in DraftKind}
        policies = dict(DEFAULT_POLICIES)
        for key, value in table.items():
            if key not in kinds:
                raise self.fail(f"[policies].{key}", f"未知的帖子类型（可用：{'、'.join(sorted(kinds))}）")
            if value not in {p.value for p in Policy}:
                raise self.fail(f"[policies].{key}", f"应为 \"auto\" 或 \"manual\"，实际是 {value!r}")
            policies[DraftKind(key)] = Policy(value)
        return policies

    def notify(self, table: dict[str, Any], default_director: str | None) -> NotifySettings:
        self.known(table, NOTIFY_KEYS, "[notify]")
        where = "[notify]"
        uid = table.get("director_uid")
        if uid is not None and (isinstance(uid, bool) or not isinstance(uid, int) or uid < 1):
            raise self.fail(f"{where}.director_uid", f"应为导演在论坛上的 uid（≥ 1 的整数），"
                                                     f"实际是 {uid!r}")
        director = table.get("director", default_director)
        if director is not None and (not isinstance(director, str) or not director.strip()):
            raise self.fail(f"{where}.director", f"应为导演的论坛用户名，实际是 {director!r}")
        kinds = table.get("kinds", sorted(DEFAULT_NOTIFY_KINDS))
        if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
            raise self.fail(f"{where}.kinds", "应为类型的列表，例：[\"approval\", \"alarm\"]")
        unknown = sorted(set(kinds) - set(NOTIFY_KINDS))
        if unknown:
            raise self.fail(f"{where}.kinds", f"未知的类型 {unknown[0]!r}（可用：{'、'.join(NOTIFY_KINDS)}）")
        return NotifySettings(
            enabled=bool(self.flag(table, "enabled", where, True)),
            director_uid=uid,
            director=director.strip() if isinstance(director, str) else None,
            kinds=frozenset(kinds),
            min_interval_seconds=self.number(table, "min_interval_seconds", where, 120.0),
            quiet_hours=self.quiet_hours(table.get("quiet_hours"), f"{where}.quiet_hours"),
            commands=bool(self.flag(table, "commands", where, True)),
            others_check_minutes=self.number(table, "others_check_minutes", where, 10.0),
            answer_others=bool(self.flag(table, "answer_others", where, True)),
            short_names=self.short_names(table.get("short_name"), f"{where}.short_name"),
        )

    def short_names(self, value: Any, key: str) -> tuple[str, ...]:
        """``short_name``: one name or a list, each one the director can type before a
        command (not a command word, not a number or a code)."""
        from parsers.commands import name_problem

        if value is None:
            return ()
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise self.fail(key, f"应为游戏的简称（文字）或简称的列表，例如 \"二局\" 或 [\"二局\", \"B\"]，而不是 {value!r}")
        for name in names:
            if (why := name_problem(name)) is not None:
                raise self.fail(key, f"简称“{name}”{why}")
        return tuple(n.strip() for n in names)

    def quiet_hours(self, value: Any, key: str) -> tuple[time, time] | None:
        """``"23:30-08:00"`` (forum time; may run past midnight), or absent/empty: none."""
        if value is None or value == "":
            return None
        m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*[-–~]\s*(\d{1,2}):(\d{2})\s*", value) \
            if isinstance(value, str) else None
        if m is None:
            raise self.fail(key, f'应为论坛时间的 "HH:MM-HH:MM"，例："01:00-08:00"，实际是 {value!r}')
        h1, m1, h2, m2 = (int(x) for x in m.groups())
        if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59 or (h1, m1) == (h2, m2):
            raise self.fail(key, f"不是一天里的一段时间：{value!r}")
        return time(h1, m1), time(h2, m2)
