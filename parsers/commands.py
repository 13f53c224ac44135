"""What the director types in a PM, read as commands. Pure: text in, commands out.

    parse("批准 K7M3\\n驳回 #12 理由：票数不对")
    → [Command(APPROVE, refs=(K7M3,)), Command(REJECT, refs=(#12,), reason="票数不对")]

The commands (docs/decisions.md, "The director by forum PM"):

========================================  ===========================================
``批准 CODE``（同意）                      approve the draft (a failed one: send again)
``驳回 CODE 理由：…``（拒绝、否决）         reject it, with the reason (required)
``查看 CODE``（全文）                      the draft's whole text, in as many PMs as needed
``重发 CODE``                              send a failed post again (looked up first)
``状态``（进度）                           a short status
``夜晚 第N日 出局：A、B`` / ``平安夜 第N日``  the night before day N (answered with its effect
                                           and a code to confirm)
``警长 名字``                              the sheriff (successor), likewise
``截止 第N日 12-05 22:00`` / ``截止 第N日 现在``  move day N's deadline / close it now (answered
                                           with what it moves and a code to confirm)
``延长 第N日 1天``                          lengthen day N (likewise)
``延长 夜N 女巫 30分钟`` / ``… 到 08:30``     lengthen one phase of night N (likewise)
``重开 第N日``                              open day N's locked voting thread again
``确认 CODE`` / ``确认 夜N``                 carry out what the code was given for; the bot's
                                           resolution of night N (games with identities)
``行动 玩家 技能 目标``                     the director enters a night action
``帮助``                                   the list of commands
========================================  ===========================================

Which game (``forumbot serve``: one director may run several games on one bot account). A
line that begins with a game's name — its name in the service (``第二局``) or a
``[notify].short_name`` — is about that game: ``第二局 平安夜 第2日``, ``【二局】状态``,
``第二局：批准 #12``. A line that is only a game's name makes the lines after it about that
game, until another such line. The name counts only when a command follows it (or
nothing): a line that merely begins with those characters is read as usual. Spaces,
full-width letters and case do not matter. ``games`` maps each name as typed (normalised:
``game_key``) to the game it names; the result's ``Command.game`` is that game (None: the
line named none — ``forumbot.notify.routing`` decides).

A reference (``ref``) is a code the bot gave (letter digit letter digit: ``K7M3``, any
case) or a draft number (``#12``, or ``12`` standing alone). Several refs may follow one
verb (``批准 K7M3、P4T9``), several commands may share a message or a line.

What people type is tolerated: full-width letters, digits and punctuation (NFKC), spaces
or none (``批准#12``, ``批准k7m3``), zero-width characters, and an earlier PM of the bot's
quoted or pasted back: ``[quote]`` blocks, ``>`` lines and any line that repeats a line of
one of the bot's own PMs (``bot_lines``) are left out before reading, and so is a line
carrying a PM's marker (``（防重发标记 pm-…）``, or the older ``（forumbot:pm-…）``). The bot's
PMs never have a line that is only a command, so a command typed by hand is never taken
for a quote.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

__all__ = ["CODE_LETTERS", "CODE_DIGITS", "VERB_ZH", "Command", "Ref", "Verb", "clean", "game_key", "games_named",
           "is_code", "name_problem", "normalise", "parse", "quoted_line_key"]

# Codes avoid look-alikes (O/0, I/1/L, S/5, B/8, Z/2): a director copies them off a phone.
CODE_LETTERS = "ACDEFGHJKMNPRTUVWXY"
CODE_DIGITS = "34679"
_CODE = re.compile(rf"[{CODE_LETTERS}][{CODE_DIGITS}][{CODE_LETTERS}][{CODE_DIGITS}]")


class Verb(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"
    VIEW = "view"
    RETRY = "retry"
    STATUS = "status"
    CONFIRM = "confirm"
    NIGHT = "night"
    SHERIFF = "sheriff"
    HELP = "help"
    DEADLINE = "deadline"
    EXTEND = "extend"
    REOPEN = "reopen"
    ACTION = "action"  # 行动 玩家 技能 目标: the director enters a night action


VERB_ZH = {Verb.APPROVE: "批准", Verb.REJECT: "驳回", Verb.VIEW: "查看", Verb.RETRY: "重发",
           Verb.STATUS: "状态", Verb.CONFIRM: "确认", Verb.NIGHT: "夜晚", Verb.SHERIFF: "警长",
           Verb.HELP: "帮助", Verb.DEADLINE: "截止", Verb.EXTEND: "延长", Verb.REOPEN: "重开",
           Verb.ACTION: "行动"}

_WORDS: tuple[tuple[str, Verb], ...] = (
    ("批准", Verb.APPROVE), ("同意", Verb.APPROVE),
    ("驳回", Verb.REJECT), ("拒绝", Verb.REJECT), ("否决", Verb.REJECT),
    ("查看", Verb.VIEW), ("全文", Verb.VIEW),
    ("重发", Verb.RETRY),
    ("状态", Verb.STATUS), ("进度", Verb.STATUS),
    ("确认", Verb.CONFIRM),
    ("平安夜", Verb.NIGHT), ("夜晚", Verb.NIGHT),
    ("警长", Verb.SHERIFF),
    ("帮助", Verb.HELP),
    ("截止", Verb.DEADLINE), ("延长", Verb.EXTEND), ("重开", Verb.REOPEN), ("重新打开", Verb.REOPEN),
    ("行动", Verb.ACTION),
)
_VERB = re.compile("|".join(re.escape(w) for w, _ in sorted(_WORDS, key=lambda p: -len(p[0]))))
_VERBS = dict(_WORDS)
_NEEDS_REF = {Verb.APPROVE, Verb.REJECT, Verb.VIEW, Verb.RETRY, Verb.CONFIRM}

# A PM's marker token, in the current line (``（防重发标记 pm-…）``) or the older one.
_PM_TOKEN = re.compile(r"pm-[0-9a-f]{6}-[0-9]+-[0-9a-f]{6}")
_OPEN = "【[［「『(（<《"
_CLOSE = "】]］」』)）>》"
_AFTER_NAME = re.compile(r"[\s:：,，、;；.。\-—]*")

_ZERO_WIDTH = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]")
_QUOTE = re.compile(r"\[quote\].*?\[/quote\]", re.IGNORECASE | re.DOTALL)
_SEP = r"[\s,，、;；/和及与]*"
# A ref: #digits; a code; or digits standing alone (not "12楼").
_REF = re.compile(rf"{_SEP}(?:#\s*(?P<hash>\d{{1,9}})|(?P<code>[A-Za-z]\d[A-Za-z]\d)(?![A-Za-z0-9])"
                  rf"|(?:夜\s*(?P<night>\d{{1,3}})\s*晚?|第\s*(?P<nth>\d{{1,3}})\s*晚)|(?P<num>\d{{1,9}})(?![\w]))")
_DAY = re.compile(r"第\s*(?P<n>\d{1,3}|[一二三四五六七八九十两]{1,3})\s*[日天]")
_REASON_HEAD = re.compile(r"^[\s,，、:：;；。.\-—]*(?:理由|原因)?\s*(?:是)?[\s:：,，、。.\-—]*")
_NAME_SPLIT = re.compile(r"[\s,，、;；/和及与]+")
_OUT_WORD = re.compile(r"(?:出局|死亡|身亡|死了?|倒牌|阵亡)\s*[:：]?")


@dataclass(frozen=True)
class Ref:
    """A draft or confirmation as the director named it: ``code`` (upper case) or
    ``draft_id``; ``text`` as typed (after normalising)."""

    text: str
    code: str | None = None
    draft_id: int | None = None
    night: int | None = None  # 确认 夜2 / 确认 第2晚: the bot's resolution of that night

    def __str__(self) -> str:
        if self.night is not None:
            return f"夜{self.night}"
        return self.code if self.code else f"#{self.draft_id}"


@dataclass(frozen=True)
class Command:
    verb: Verb
    text: str  # the command as read (normalised), for the audit log and the answer
    refs: tuple[Ref, ...] = ()
    reason: str = ""  # 驳回's reason
    day: int | None = None  # 夜晚: the day whose morning follows the night (None: the one awaited)
    players: tuple[str, ...] = ()  # 夜晚: who went out, in order (empty: 平安夜)
    player: str | None = None  # 警长
    problem: str | None = None  # why it cannot be carried out as typed (Chinese)
    game: str | None = None  # the game the line named (None: none named)
    when: str | None = None  # 截止: the new deadline as typed ("12-05 22:00"; the game reads it)
    now: bool = False  # 截止 现在
    span: str | None = None  # 延长: how long, as typed ("1天")
    night: int | None = None  # 延长 夜N: the night whose phase is lengthened
    phase: str | None = None  # … and the phase, as typed ("女巫")


def normalise(text: str) -> str:
    """NFKC (full-width → half-width), no zero-width characters, Unix line ends."""
    text = _ZERO_WIDTH.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    return unicodedata.normalize("NFKC", text)


def quoted_line_key(line: str) -> str:
    """A line as compared with the bot's own lines: normalised, spaces removed."""
    return re.sub(r"\s+", "", normalise(line))


def game_key(name: str) -> str:
    """A game's name as compared with what the director typed: NFKC, no spaces, case folded."""
    return re.sub(r"\s+", "", normalise(name)).casefold()


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be typed before a command to name a game (Chinese), or None."""
    key = game_key(name)
    if not key:
        return "不能为空"
    if len(key) > 20:
        return "太长（最多 20 个字）"
    if key.isdigit() or _REF.fullmatch(key) or _CODE.fullmatch(key.upper()):
        return "不能只是数字或像编号（K7M3）的写法：会和草稿编号混淆"
    if _VERB.match(key) or any(key.startswith(w) for w, _ in _WORDS):
        return "不能以指令词开头（批准、状态、夜晚……）"
    if any(ch in _OPEN + _CLOSE for ch in key):
        return "不能含有括号"
    return None


def is_code(text: str) -> bool:
    return _CODE.fullmatch(text.upper()) is not None


def clean(text: str, bot_lines: Iterable[str] = ()) -> str:
    """The director's own words, as typed: ``[quote]`` blocks, ``>`` lines, lines carrying
    the bot's marker and lines repeating one of the bot's (``bot_lines``) left out."""
    text = _QUOTE.sub("\n", _ZERO_WIDTH.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))
    mine = {k for k in (quoted_line_key(line) for line in bot_lines) if len(k) >= 6}
    kept = []
    for line in text.split("\n"):
        n = normalise(line).strip()
        if n.startswith(">") or "forumbot:" in n or _PM_TOKEN.search(n) or quoted_line_key(n) in mine:
            continue
        kept.append(line)
    return "\n".join(kept)


def parse(text: str, *, bot_lines: Iterable[str] = (), games: Mapping[str, str] | None = None) -> list[Command]:
    """Every command in ``text``, in the order typed; with ``games`` (``game_key(name)`` →
    game), each knows the game its line named (see above)."""
    commands: list[Command] = []
    current: str | None = None  # named by a line of its own, for the lines after it
    for line in clean(text, bot_lines).split("\n"):
        game, rest = _game_prefix(line, games or {})
        if game is not None and not rest.strip():
            current = game
            continue
        found = _line(rest if game is not None else line)
        named = game if game is not None else current
        commands += [replace(c, game=named) for c in found] if named is not None else found
    return commands


def games_named(text: str, games: Mapping[str, str], *, follows: Callable[[str], bool] = lambda rest: True
                ) -> tuple[list[str], str]:
    """The games ``text``'s lines name, as ``parse`` reads a director's (a name at the start
    of a line, or a line that is only a name for the lines after it), in order without
    repeats, and ``text`` with the names taken off. ``follows``: whether what comes after
    a name lets it count (a player's night order is no director's command: anything may)."""
    named: list[str] = []
    kept: list[str] = []
    for line in text.split("\n"):
        game, rest = _game_prefix(line, games, follows)
        if game is not None and game not in named:
            named.append(game)
        if game is not None and not rest.strip():
            continue
        kept.append(rest if game is not None else line)
    return named, "\n".join(kept)


def _is_command(rest: str) -> bool:
    return _VERB.match(rest.lstrip()) is not None


def _game_prefix(original: str, games: Mapping[str, str], follows: Callable[[str], bool] = _is_command
                 ) -> tuple[str | None, str]:
    """The game named at the start of the line, and the rest of the line (as typed)."""
    if not games:
        return None, original
    line = _Line(original)
    text = line.text
    pos = len(text) - len(text.lstrip())
    if pos < len(text) and text[pos] in _OPEN:
        pos += 1
    # The names compared without spaces or case: walk the line char by char.
    for key in sorted(games, key=len, reverse=True):
        i, j = pos, 0
        while i < len(text) and j < len(key):
            if text[i].isspace():
                i += 1
                continue
            if text[i].casefold() != key[j]:
                break
            i += 1
            j += 1
        if j < len(key):
            continue
        end = i
        if end < len(text) and text[end] in _CLOSE:
            end += 1
        end = _AFTER_NAME.match(text, end).end()  # type: ignore[union-attr]
        rest_norm = text[end:]
        # Only a name followed by a command (or by nothing) names a game.
        if rest_norm.strip() and not follows(rest_norm):
            continue
        return games[key], line.original[line.where(end):]
    return None, original


class _Line:
    """A line as typed and as read: matching runs on ``text`` (normalised character by
    character), what is quoted back (a reason, the command as typed) comes from
    ``original`` — a reason keeps its ，and ：."""

    def __init__(self, original: str) -> None:
        self.original = original
        out: list[str] = []
        self._where: list[int] = []
        for i, ch in enumerate(original):
            for n in unicodedata.normalize("NFKC", ch):
                out.append(n)
                self._where.append(i)
        self._where.append(len(original))
        self.text = "".join(out)

    def where(self, pos: int) -> int:
        """The position in ``original`` of position ``pos`` of ``text``."""
        return self._where[pos]

    def typed(self, start: int, end: int | None = None) -> str:
        a = self._where[start]
        b = self._where[len(self.text) if end is None else end]
        return self.original[a:b].strip()


def _line(original: str) -> list[Command]:
    line = _Line(original)
    found: list[Command] = []
    pos = last = 0
    while (m := _VERB.search(line.text, pos)) is not None:
        verb = _VERBS[m.group()]
        # Starts the line, or follows the previous command: typed as a command, not prose.
        at_start = not line.text[last:m.start()].strip(" \t,，、;；。.!！")
        command, end = _command(verb, m.group(), line, m.start(), m.end(), at_start)
        if command is not None:
            found.append(command)
            last = max(end, m.end())
        pos = max(end, m.end())
    return found


def _refs(text: str, pos: int) -> tuple[tuple[Ref, ...], int]:
    refs: list[Ref] = []
    while (m := _REF.match(text, pos)) is not None and m.end() > pos:
        if m.group("hash"):
            refs.append(Ref("#" + m.group("hash"), draft_id=int(m.group("hash"))))
        elif m.group("night") or m.group("nth"):
            number = m.group("night") or m.group("nth")
            refs.append(Ref("夜" + number, night=int(number)))
        elif m.group("num"):
            refs.append(Ref(m.group("num"), draft_id=int(m.group("num"))))
        else:  # any letter-digit-letter-digit: one the bot never gave is answered as unknown
            code = m.group("code").upper()
            refs.append(Ref(code, code=code))
        pos = m.end()
    return tuple(refs), pos


def _command(verb: Verb, word: str, line: _Line, start: int, pos: int,
             at_start: bool) -> tuple[Command | None, int]:
    text = line.text
    if verb in _NEEDS_REF:
        refs, end = _refs(text, pos)
        if not refs:
            # A verb in a sentence ("我再看看再批准") is not a command; one that starts a
            # line without a code is, and is answered with what is missing.
            if not at_start:
                return None, pos
            return Command(verb, line.typed(start), problem=f"“{word}”后面要写编号，例如：{word} K7M3"), len(text)
        if verb is Verb.REJECT:
            reason = _REASON_HEAD.sub("", line.typed(end)).strip()
            problem = None if reason else "驳回要写明理由，例如：驳回 K7M3 理由：票数不对"
            return Command(verb, line.typed(start), refs, reason=reason, problem=problem), len(text)
        return Command(verb, line.typed(start, end), refs), end
    if verb in (Verb.STATUS, Verb.HELP):
        return Command(verb, word), pos
    if not at_start:
        return None, pos  # 夜晚 / 警长 / 行动 in a sentence
    if verb is Verb.ACTION:  # the rest of the line is the action (engine.night.orders reads it)
        rest = text[pos:].strip()
        problem = None if rest else "“行动”后面要写：玩家 技能 目标，例如：行动 饺子 杀人 包子"
        return Command(verb, line.typed(start), problem=problem), len(text)
    rest = _until_verb(text, pos)
    end = pos + len(rest)
    if verb is Verb.NIGHT:
        return _night(word, line.typed(start, end), rest), end
    if verb in (Verb.DEADLINE, Verb.EXTEND, Verb.REOPEN):
        return _schedule(verb, word, line.typed(start, end), rest), end
    name = re.sub(r"^(?:是|为|改为|给|交给|移交给?)\s*", "", rest.strip(" \t:：,，、。.")).strip()
    if "谁" in name or name.endswith("?"):
        return Command(Verb.STATUS, word), end  # "警长是谁？": the status says it
    problem = None if name else "“警长”后面要写玩家名，例如：警长 饺子"
    return Command(verb, line.typed(start, end), player=name or None, problem=problem), end


def _until_verb(text: str, pos: int) -> str:
    m = _VERB.search(text, pos)
    return text[pos:m.start() if m else len(text)]


def _night(word: str, typed: str, rest: str) -> Command:
    day = None
    if (d := _DAY.search(rest)) is not None:
        day = _number(d.group("n"))
        rest = rest[:d.start()] + " " + rest[d.end():]
    if word == "平安夜":
        return Command(Verb.NIGHT, typed, day=day, players=())
    names_text = rest
    if (o := _OUT_WORD.search(rest)) is not None:
        names_text = rest[o.end():] if rest[o.end():].strip() else rest[:o.start()]
    names = tuple(n for n in (x.strip(" :：.。!！") for x in _NAME_SPLIT.split(names_text)) if n)
    if names in (("无",), ("没有",), ("无人",), ("平安夜",)):
        names = ()
    problem = None
    if not names and not re.search(r"无|没有|平安", rest):
        problem = "请写出夜晚出局的玩家，例如：夜晚 第2日 出局：汤圆、Alice（没有人出局写：平安夜 第2日）"
    return Command(Verb.NIGHT, typed, day=day, players=names, problem=problem)


_NOW_WORD = re.compile(r"^(?:现在|立即|立刻|马上)(?:截止)?$")
_TO_WORD = re.compile(r"^(?:改到|改为|改成|推迟到|提前到|到|为|在)\s*")


def _schedule(verb: Verb, word: str, typed: str, rest: str) -> Command:
    day = None
    if (d := _DAY.search(rest)) is not None:
        day = _number(d.group("n"))
        rest = rest[:d.start()] + " " + rest[d.end():]
    rest = _TO_WORD.sub("", rest.strip(" \t:：,，、。.!！")).strip()
    if "?" in rest or "几" in rest:
        return Command(Verb.STATUS, word)  # "截止是几点？": the status says it
    if verb is Verb.REOPEN:
        return Command(verb, typed, day=day)
    if verb is Verb.EXTEND and (n := _NIGHT_WORD.search(rest)) is not None:
        return _night_extension(typed, n, rest)
    if verb is Verb.EXTEND:
        span = rest or None
        problem = None if span else "“延长”后面要写延长多久，例如：延长 第2日 1天"
        return Command(verb, typed, day=day, span=span, problem=problem)
    if _NOW_WORD.match(rest):
        return Command(verb, typed, day=day, now=True)
    problem = None if rest else "“截止”后面要写新的截止时间或「现在」，例如：截止 第2日 12-05 22:00，或 截止 第2日 现在"
    return Command(verb, typed, day=day, when=rest or None, problem=problem)


_NIGHT_WORD = re.compile(r"夜\s*(?P<a>\d{1,3})\s*晚?|第\s*(?P<b>\d{1,3}|[一二三四五六七八九十两]{1,3})\s*晚")
_PHASE_AND_AMOUNT = re.compile(r"^[\s:：,，、]*(?P<phase>[^\s\d:：,，、到至]+)?[\s:：,，、]*(?P<amount>.*?)\s*$")
_UNTIL_WORD = re.compile(r"^(?:延长|推迟|改)?(?:到|至)\s*")


def _night_extension(typed: str, n: re.Match[str], rest: str) -> Command:
    """延长 夜2 女巫 30分钟 / 延长 第2晚 女巫 到 08:30: one phase of one night."""
    night = _number(n.group("a") or n.group("b"))
    m = _PHASE_AND_AMOUNT.match(rest[:n.start()] + " " + rest[n.end():])
    assert m is not None  # every part is optional
    phase, amount = m.group("phase"), m.group("amount").strip(" \t:：,，、。.!！")
    until = None
    if (t := _UNTIL_WORD.match(amount)) is not None:
        until, amount = amount[t.end():].strip() or None, ""
    problem = None
    if not phase or not (amount or until):
        problem = "“延长 夜N”后面要写阶段和延长多久，例如：延长 夜2 女巫 30分钟（或：延长 夜2 女巫 到 08:30）"
    return Command(Verb.EXTEND, typed, night=night, phase=phase, span=amount or None, when=until, problem=problem)


_CN = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN.get(tens, 1) if tens else 1) * 10 + (_CN.get(ones, 0) if ones else 0)
    return _CN.get(text, 0)
