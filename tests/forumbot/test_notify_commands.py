"""The director's PM text read as commands (``parsers.commands``): what people type
— full-width, spaces or none, 批准#12, several commands in one message, a quoted earlier PM
— and the splitting of a long text into PMs (``forumbot.notify.pmbox.split_text``)."""

from __future__ import annotations

import pytest

from parsers.commands import Verb, clean, parse
from forumbot.notify.pmbox import split_text


def one(text: str, **kw):
    [command] = parse(text, **kw)
    return command


@pytest.mark.parametrize("text", ["批准 K7M3", "批准K7M3", "批准　Ｋ７Ｍ３", "批准 k7m3", " 批准  K7M3 。",
                                  "好的，批准 K7M3，谢谢", "批准\u200bK7M3", "同意 K7M3"])
def test_commands__approve_as_people_type_it(text):
    c = one(text)
    assert c.verb is Verb.APPROVE and [r.code for r in c.refs] == ["K7M3"] and c.problem is None


@pytest.mark.parametrize("text, draft", [("批准#12", 12), ("批准 #12", 12), ("批准＃１２", 12), ("批准 12", 12),
                                         ("批准 # 12", 12)])
def test_commands__a_draft_number_works_too(text, draft):
    assert [r.draft_id for r in one(text).refs] == [draft]


def test_commands__several_refs_and_several_commands():
    commands = parse("批准 K7M3、P4T9 和 #5\n查看A3C4 驳回 #6 理由：票数不对，12楼改票没引用\n状态")
    assert [(c.verb, [str(r) for r in c.refs]) for c in commands] == [
        (Verb.APPROVE, ["K7M3", "P4T9", "#5"]), (Verb.VIEW, ["A3C4"]), (Verb.REJECT, ["#6"]), (Verb.STATUS, [])]
    assert commands[2].reason == "票数不对，12楼改票没引用"  # as typed: Chinese punctuation kept


@pytest.mark.parametrize("text, reason", [("驳回 K7M3 理由：票数不对", "票数不对"), ("驳回K7M3，票数不对", "票数不对"),
                                          ("驳回 K7M3 理由:漏了烧卖", "漏了烧卖"), ("拒绝 K7M3 原因是重复了", "重复了")])
def test_commands__reject_keeps_the_reason(text, reason):
    c = one(text)
    assert c.verb is Verb.REJECT and c.reason == reason and c.problem is None


def test_commands__what_is_missing_is_said():
    assert "理由" in one("驳回 K7M3").problem
    assert "编号" in one("批准").problem
    assert "编号" in one("批准12楼").problem  # 12楼 is a floor, not a draft
    assert parse("我再看看再批准") == []  # a word in a sentence is not a command
    assert parse("谢谢导演") == []


def test_commands__nights_and_the_sheriff():
    c = one("夜晚 第2日 出局：汤圆、Alice")
    assert (c.verb, c.day, c.players) == (Verb.NIGHT, 2, ("汤圆", "Alice"))
    assert (one("平安夜 第三日").day, one("平安夜 第三日").players) == (3, ())
    assert one("夜晚 第十二日 出局：无").players == ()
    assert one("夜晚 出局 汤圆").day is None  # the awaited night is used
    assert "出局的玩家" in one("夜晚 第2日").problem
    assert (one("警长 饺子").verb, one("警长 饺子").player) == (Verb.SHERIFF, "饺子")
    assert one("警长是谁？").verb is Verb.STATUS
    assert parse("昨天夜晚好冷") == []  # 夜晚 inside a sentence


def test_commands__a_quoted_earlier_pm_is_not_read_as_commands():
    bot = "【待你处理】第1日已截止，最终计票 #9 待审批\n　回复「批准 K7G6」发出，「查看 K7G6」看全文\n（forumbot:pm-3fa9c1-2-0b5e2d）"
    pasted = f"{bot}\n驳回 K7G6 理由：票数不对"
    assert [c.verb for c in parse(pasted, bot_lines=bot.split("\n"))] == [Verb.REJECT]
    assert [c.verb for c in parse(f"[quote]{bot}[/quote]\n查看 K7G6")] == [Verb.VIEW]
    assert [c.verb for c in parse("> 回复「批准 K7G6」发出\n状态")] == [Verb.STATUS]
    # a command typed by hand is never taken for a quote, even when the bot's PM had it
    assert [c.verb for c in parse("批准 K7G6", bot_lines=bot.split("\n"))] == [Verb.APPROVE]


def test_commands__clean_keeps_the_directors_words():
    assert clean("[QUOTE]批准 K7G6[/quote]好的") == "\n好的"


def test_split_text__parts_fit_and_join_back():
    body = "\n".join(f"{i}：" + "饺子" * 30 for i in range(100))
    parts = split_text(body, 1000, "utf-8")
    assert len(parts) > 5 and all(len(p.encode("utf-8")) <= 1000 for p in parts)
    assert "\n".join(parts) == body
    one_line = "汤" * 1000
    assert "".join(split_text(one_line, 301, "gbk")) == one_line
    assert all(len(p.encode("gbk")) <= 301 for p in split_text(one_line, 301, "gbk"))
    assert split_text("短", 1000, "utf-8") == ["短"]


# ---------------------------------------------------------------- which game (forumbot serve)

GAMES = {"第一局": "第一局", "一局": "第一局", "第二局": "第二局", "二局": "第二局", "alpha": "Alpha"}


@pytest.mark.parametrize("text, game", [
    ("第二局 平安夜 第2日", "第二局"), ("【二局】状态", "第二局"), ("第二局：批准 #12", "第二局"),
    ("第 二 局状态", "第二局"), ("ALPHA 状态", "Alpha"), ("［第一局］ 警长 饺子", "第一局"),
    ("状态", None), ("第二局的事 状态", None),  # a name must be followed by a command
])
def test_commands__a_game_named_before_the_command(text, game):
    from parsers.commands import game_key

    [c] = parse(text, games={game_key(k): v for k, v in GAMES.items()})
    assert c.game == game


@pytest.mark.parametrize("text, named, rest", [
    ("二局 杀人 包子", ["第二局"], "杀人 包子"), ("【第一局】预言 汤圆", ["第一局"], "预言 汤圆"),
    ("第二局\n毒药 春卷", ["第二局"], "毒药 春卷"), ("杀人 包子", [], "杀人 包子"),
    ("一局 杀人 包子\n二局 放弃", ["第一局", "第二局"], "杀人 包子\n放弃"),
])
def test_commands__a_players_night_order_names_its_game_as_a_director_does(text, named, rest):
    """A night order is no director's command: any order may follow the name."""
    from parsers.commands import games_named

    assert games_named(text, GAMES) == (named, rest)


def test_commands__a_line_with_only_a_games_name_names_the_lines_after_it():
    commands = parse("第一局\n状态\n批准 K7M3\n二局\n平安夜 第2日", games=GAMES)
    assert [(c.verb, c.game) for c in commands] == [(Verb.STATUS, "第一局"), (Verb.APPROVE, "第一局"),
                                                    (Verb.NIGHT, "第二局")]


@pytest.mark.parametrize("name, ok", [("二局", True), ("B局", True), ("状态局", False), ("12", False), ("K7M3", False),
                                      ("【二】", False), ("", False)])
def test_commands__a_short_name_the_director_can_type(name, ok):
    from parsers.commands import name_problem

    assert (name_problem(name) is None) is ok


def _route(text: str, owners: dict[str, set[str]]):
    from parsers.commands import game_key
    from forumbot.notify.routing import Choice, route

    games = [Choice(g, (), lambda code, g=g: code in owners[g]) for g in owners]
    names = {game_key(g): g for g in owners} | {game_key("其他局"): "其他局"}
    return route(parse(text, games=names), games)


# (message, codes each game holds) → (commands per game, results of the answers no single game gives)
ROUTES = [
    ("one game: everything is its own", "状态\n平安夜 第2日\n批准 #3", {"甲": set()},
     {"甲": ["status", "night", "approve"]}, []),
    ("a code names its game", "批准 K7M3", {"甲": set(), "乙": {"K7M3"}}, {"乙": ["approve"]}, []),
    ("codes of two games: split", "批准 K7M3、P4T9", {"甲": {"P4T9"}, "乙": {"K7M3"}},
     {"甲": ["approve"], "乙": ["approve"]}, []),
    ("no code, two games: the question", "平安夜 第2日", {"甲": set(), "乙": set()}, {}, ["which_game"]),
    ("状态 too", "状态", {"甲": set(), "乙": set()}, {}, ["which_game"]),
    ("a draft number: the question", "批准 #12", {"甲": set(), "乙": set()}, {}, ["which_game"]),
    ("named", "乙 平安夜 第2日", {"甲": set(), "乙": set()}, {"乙": ["night"]}, []),
    ("named, with another game's code", "甲 批准 K7M3", {"甲": set(), "乙": {"K7M3"}}, {}, ["other_games_code"]),
    ("a code nobody gave", "批准 K3M4", {"甲": set(), "乙": set()}, {}, ["unknown"]),
    ("a code two games hold", "批准 K7M3", {"甲": {"K7M3"}, "乙": {"K7M3"}}, {}, ["which_game"]),
    ("a game not the director's", "其他局 状态", {"甲": set(), "乙": set()}, {}, ["not_your_game"]),
    ("the director's only game, another named", "其他局 状态", {"甲": set()}, {}, ["not_your_game"]),
    ("帮助 without a name", "帮助", {"甲": set(), "乙": set()}, {}, ["answered"]),
]


@pytest.mark.parametrize("text, owners, commands, notes", [r[1:] for r in ROUTES], ids=[r[0] for r in ROUTES])
def test_routing__each_command_to_the_game_it_names(text, owners, commands, notes):
    routed = _route(text, owners)
    assert {g: [c.verb.value for c in cs] for g, cs in routed.commands.items()} == commands
    assert [n.effect["result"] for n in routed.notes] == notes


def test_routing__the_question_lists_the_games_and_how_to_name_them():
    [note] = _route("平安夜 第2日", {"甲": set(), "乙": set()}).notes
    assert "你是 2 局游戏的导演（甲、乙）" in note.text and "例如：甲 平安夜 第2日" in note.text


@pytest.mark.parametrize("text, night, phase, span, when", [
    ("延长 夜2 女巫 30分钟", 2, "女巫", "30分钟", None),
    ("延长 第2晚 女巫 到 08:30", 2, "女巫", None, "08:30"),
    ("延长夜1守卫10分钟", 1, "守卫", "10分钟", None),
    ("延长 夜3 狼人至8:30", 3, "狼人", None, "8:30"),
])
def test_commands__a_nights_phase_extended(text, night, phase, span, when):
    c = one(text)
    assert (c.verb, c.night, c.phase, c.span, c.when, c.problem) == (Verb.EXTEND, night, phase, span, when, None)


def test_commands__a_nights_extension_without_its_phase_or_length_says_what_is_missing():
    assert "后面要写阶段和延长多久" in one("延长 夜2").problem
    assert "后面要写阶段和延长多久" in one("延长 夜2 女巫").problem
    assert one("延长 第2日 1天").night is None  # the day's 延长 as before
