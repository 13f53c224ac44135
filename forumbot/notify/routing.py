"""Which game each of the director's commands is for, when one director runs several games
on one bot account (``forumbot serve``). Pure: commands and the director's games in, the
commands per game and the answers for what no single game may take out.

The rules (README, "The director by forum PM"; docs/decisions.md):

* a **code** (``批准 K7M3``, ``确认 P4T9``) names its game by itself: codes are unique
  across the service. A command with codes of two games is split, each part to its game.
  A code no game gave is answered as unknown; a code two games hold (given before codes
  were unique across the service) is a question;
* a **game's name** at the start of the line (``第二局 平安夜 第2日``) names the game; with
  a code of another game, nothing is done and the answer says whose code it is;
* otherwise (``夜晚 …``, ``状态``, ``批准 #12``, ``警长 …``): the director's only game, or —
  with two or more — the question "which game?", listing them; **never applied on a guess**;
* ``帮助`` without a name: the help, with the director's games and how to name them;
* a name of a game that is not the director's (or not running now): nothing is done, and
  the answer says so.

With one game everything is that game's (``forumbot run``, or a director with one game).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from parsers.commands import Command, Ref, Verb

__all__ = ["Choice", "Note", "Routed", "help_text", "route", "which_game"]

_REF_VERBS = {Verb.APPROVE, Verb.REJECT, Verb.VIEW, Verb.RETRY, Verb.CONFIRM}


@dataclass(frozen=True)
class Choice:
    """One of the director's games: its name, the other names the director may type, and
    whether a code is one of its own."""

    name: str
    aliases: tuple[str, ...] = ()
    owns: Callable[[str], bool] = lambda code: False

    @property
    def typed(self) -> str:
        """How the director may name it (Chinese): ``第二局（也可写：二局）``."""
        return self.name + (f"（也可写：{'、'.join(self.aliases)}）" if self.aliases else "")


@dataclass(frozen=True)
class Note:
    """An answer about a command no single game carries out (Chinese), with its record."""

    text: str
    effect: dict[str, Any]


@dataclass
class Routed:
    commands: dict[str, list[Command]] = field(default_factory=dict)  # game → its commands, in order
    notes: list[Note] = field(default_factory=list)  # answered by the director's first game

    def add(self, game: str, command: Command) -> None:
        self.commands.setdefault(game, []).append(command)


def which_game(names: Sequence[str]) -> str:
    """The question's list: ``第一局、第二局``."""
    return "、".join(names)


def route(commands: Sequence[Command], games: Sequence[Choice]) -> Routed:
    """``commands`` (as ``parse`` read them) to ``games`` — the games of this director
    listening when the message came. A command naming a game not among them (another
    director's, one not running) is answered, not carried out."""
    routed = Routed()
    if not games:
        return routed
    if len(games) == 1 and not any(c.game is not None and c.game != games[0].name for c in commands):
        routed.commands[games[0].name] = list(commands)
        return routed
    by_name = {g.name: g for g in games}
    names = [g.name for g in games]
    for c in commands:
        if c.game is not None and c.game not in by_name:
            routed.notes.append(Note(
                f"「{c.text}」没有执行：{c.game} 不是你导演的游戏，或现在没有在运行"
                + (f"（你导演的：{which_game(names)}）" if names else ""),
                _effect(c, "not_your_game", game=c.game)))
            continue
        if c.verb in _REF_VERBS and not c.problem:
            _refs(c, by_name, names, routed)
        elif c.game is not None:
            routed.add(c.game, c)
        elif len(games) == 1:
            routed.add(names[0], c)
        elif c.verb is Verb.HELP:
            routed.notes.append(Note(help_text(games), _effect(c, "answered")))
        else:
            routed.notes.append(Note(_question(c, games), _effect(c, "which_game", games=names)))
    return routed


def _refs(c: Command, by_name: dict[str, Choice], names: list[str], routed: Routed) -> None:
    """A command with codes or draft numbers: split by the game each ref names."""
    groups: dict[str, list[Ref]] = {}
    for ref in c.refs:
        if ref.code is not None:
            owners = [n for n in names if by_name[n].owns(ref.code)]
            if c.game is not None:
                if owners and c.game not in owners:
                    routed.notes.append(Note(
                        f"「{c.text}」里的 {ref.code} 没有执行：它是{which_game(owners)}的编号，不是{c.game}的。"
                        f"请对照机器人的消息再发一次（编号只属于一局，不用写游戏名）",
                        _effect(c, "other_games_code", ref=str(ref), games=owners)))
                    continue
                groups.setdefault(c.game, []).append(ref)
            elif len(owners) == 1:
                groups.setdefault(owners[0], []).append(ref)
            elif not owners:
                if len(names) == 1:
                    groups.setdefault(names[0], []).append(ref)
                else:
                    routed.notes.append(Note(
                        f"没有编号为 {ref.code} 的草稿或待确认的录入（你导演的 {len(names)} 局游戏里都没有；"
                        "编号不分大小写，请对照机器人的消息）",
                        _effect(c, "unknown", ref=str(ref))))
            else:  # the same code in two games (issued before codes were unique across the service)
                routed.notes.append(Note(
                    f"「{c.text}」没有执行：{ref.code} 在{which_game(owners)}里都有。请在前面写上游戏名再发一次，"
                    f"例如：{owners[0]} {c.text}", _effect(c, "which_game", ref=str(ref), games=owners)))
        else:  # a draft number: every game has a #12
            if c.game is not None:
                groups.setdefault(c.game, []).append(ref)
            elif len(names) == 1:
                groups.setdefault(names[0], []).append(ref)
            else:
                routed.notes.append(Note(
                    f"「{c.text}」没有执行：每局游戏都有草稿 {ref}，不知道是哪一局的。请用机器人给的编号"
                    f"（如 K7M3），或在前面写上游戏名，例如：{names[0]} {c.text}",
                    _effect(c, "which_game", ref=str(ref), games=names)))
    for game, refs in groups.items():
        routed.add(game, replace(c, refs=tuple(refs)))


def _question(c: Command, games: Sequence[Choice]) -> str:
    return (f"「{c.text}」没有执行：你是 {len(games)} 局游戏的导演（{which_game([g.name for g in games])}），"
            f"这条指令没有写是哪一局。请在前面写上游戏名再发一次，例如：{games[0].name} {c.text}\n"
            f"可以写的游戏名：{'；'.join(g.typed for g in games)}")


def help_text(games: Sequence[Choice]) -> str:
    from forumbot.notify.tell import HELP

    return (f"{HELP}\n你是 {len(games)} 局游戏的导演：{'；'.join(g.typed for g in games)}。"
            f"编号（如 K7M3）只属于一局，直接回复即可；其他指令前面写上游戏名，例如：{games[0].name} 状态")


def _effect(c: Command, result: str, **more: Any) -> dict[str, Any]:
    return {"command": c.text, "verb": c.verb.value, "refs": [str(r) for r in c.refs], "result": result, **more}
