"""A three-day 14人简易 game whose nights are played by the players' PMs to the bot, over
real HTTP on the simulator — Discuz! X3.5 UTF-8 and 7.2 GBK — the director only approving
drafts and confirming the bot's resolution of each night, by PM (issue 20, items 2–3):
every action answered once (已收到 / 未计入 with the reason), the feedback once when known
(预言 at once, 通灵 when the kill is final), the identities once, each night proposed and
confirmed into the next morning's announcement, every bot PM sent exactly once, and no
identity in a public post or in a PM to anyone but its owner and the director."""

from __future__ import annotations

import functools
import logging
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from forumbot.demo.nights import ELDER, SEER, WITCH, WOLVES
from forumbot.store.outbox import DraftKind, DraftState
from tests.forumbot.nights_support import (DIRECTOR, IDENTITY_WORDS, MARKER, PLAYERS14, SHEET14, NightsGame, body,
                                           play_nights)

GENERATIONS = [("x3", "utf-8"), ("7.2", "gbk")]


@functools.cache
def _played(discuz: str, charset: str) -> tuple[NightsGame, list[str]]:
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    handler = Keep(level=logging.DEBUG)
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        game = play_nights(Path(tempfile.mkdtemp(prefix="forumbot-nights-")), discuz, charset)
    finally:
        root.removeHandler(handler)
        root.setLevel(old)
    return game, records


@pytest.fixture(scope="module", params=GENERATIONS, ids=lambda g: "-".join(g))
def played(request):
    game, logs = _played(*request.param)
    yield game, logs


def answers(ng: NightsGame, who: str) -> list[str]:
    return [body(m.text) for m in ng.bot_pms(who) if body(m.text).startswith(("已收到", "未计入", "未读懂"))]


def test_nights__the_game_runs_without_errors_and_each_night_is_confirmed(played):
    ng, _ = played
    assert ng.game.errors == []
    proposals = {p.night: p for p in ng.game.rt.store.night_proposals()}
    assert {n: (p.state, p.data["out"], p.data["marks"]) for n, p in proposals.items()} == {
        1: ("confirmed", ["汤圆"], []), 2: ("confirmed", ["春卷"], [ELDER])}
    assert ng.game.rt.store.night_result(2).out == ("汤圆",)
    assert ng.game.rt.store.night_result(3).out == ("春卷",)


def test_nights__every_player_message_is_answered_exactly_once(played):
    ng, _ = played
    for who in PLAYERS14:
        sent = ng.player_pms(who)
        assert len(answers(ng, who)) == len(sent), (who, [m.text for m in sent], answers(ng, who))
    assert answers(ng, "麻花") == ["未计入：杀人 饺子（没有这个技能（不是该身份的、已失去或已用完）：村民没有杀人）"]
    assert answers(ng, "包子") == ["已收到：杀人 汤圆", "未计入：杀人 粽子（行动者已出局：包子 已出局）"]
    assert answers(ng, "春卷") == ["已收到：杀人 Alice", "已收到：杀人 汤圆", "已收到：杀人 馄饨"]
    assert answers(ng, WITCH) == ["已收到：放弃", "已收到：毒药 春卷"]


def test_nights__feedback_is_sent_once_when_known(played):
    ng, _ = played
    seer = [body(m.text) for m in ng.bot_pms(SEER)]
    assert [t for t in seer if "预言：" in t] == ["第1晚 预言：包子 —— 非村民阵营", "第2晚 预言：月饼 —— 非村民阵营"]
    witch = ng.bot_pms(WITCH)
    psychic = [m for m in witch if "通灵" in m.text]
    assert [body(m.text) for m in psychic] == ["第1晚 通灵：今晚被指杀的角色：汤圆", "第2晚 通灵：今晚被指杀的角色：馄饨"]
    # night 1: every wolf named 汤圆 by 22:10 — final then, told before the witch's 23:30
    first = psychic[0]
    (passed,) = [m for m in ng.player_pms(WITCH) if m.text == "放弃"]
    assert first.at < passed.at


def test_nights__each_player_is_told_their_identity_once(played):
    ng, _ = played
    for who in PLAYERS14:
        told = [body(m.text) for m in ng.bot_pms(who) if "你的身份" in m.text]
        assert len(told) == 1, who
        assert told[0].startswith(f"你的身份：{SHEET14[who]}。")
        if who in WOLVES:
            assert "狼人同伴：" + "、".join(w for w in WOLVES if w != who) in told[0]


def test_nights__the_director_gets_each_proposal_and_confirms_it(played):
    ng, _ = played
    texts = [body(m.text) for m in ng.bot_pms(DIRECTOR)]
    proposals = [t for t in texts if "结算建议" in t]
    assert len(proposals) == 2
    assert "汤圆（村民）出局，原因：杀人" in proposals[0]
    assert "馄饨" in proposals[1] and "春卷（狼人）出局，原因：毒药" in proposals[1]
    assert any(t.startswith("已确认第1晚（第1版）：汤圆") for t in texts)
    assert any(t.startswith("已确认第2晚（第1版）：春卷") for t in texts)
    sent = [t for t in ng.director.sent if t.startswith("确认")]
    assert len(sent) == 2


def test_nights__the_morning_announcements_carry_the_confirmed_nights(played):
    ng, _ = played
    published = {d.day: d.body for d in ng.game.rt.outbox.drafts(DraftState.PUBLISHED)
                 if d.kind is DraftKind.ANNOUNCEMENT}
    assert "汤圆" in published[2] and "春卷" in published[3]


def test_nights__every_bot_pm_is_sent_exactly_once(played):
    ng, _ = played
    markers = Counter(m for pm in ng.all_bot_pms() for m in MARKER.findall(pm.text))
    assert markers and max(markers.values()) == 1
    rows = ng.game.rt.store.db.query("SELECT marker, state FROM notify_pms")
    for row in rows:
        assert row["state"] == "sent", row
        assert markers[row["marker"]] == 1


def test_nights__no_identity_leaks(played):
    ng, logs = played
    own = {who: SHEET14[who] for who in PLAYERS14}
    # public posts: every post the bot made, and nothing in them names an identity
    for _, pid, message in ng.game.world.bot_posts():
        assert not [w for w in IDENTITY_WORDS if w in message], (pid, message)
    # PMs: a player hears only their own identity (the seer's 村民阵营 is a faction)
    for who in PLAYERS14:
        for m in ng.bot_pms(who):
            text = body(m.text).replace("非村民阵营", "").replace("村民阵营", "")
            words = {w for w in IDENTITY_WORDS if w in text} - {own[who]}
            assert not words, (who, text)
    # the log lines say how many, never who or what
    joined = "\n".join(logs)
    assert not [w for w in IDENTITY_WORDS if w in joined]
    for who in PLAYERS14:
        for m in ng.player_pms(who):
            assert m.text not in joined


def test_nights__forumbot_resolve_agrees_with_the_agent(played):
    """The stored actions and the events before each night, written as a config's
    [[actions]] and [[events]]: ``forumbot resolve`` gives the night the agent proposed."""
    import json

    from click.testing import CliRunner

    from engine.events import EventKind as GameKind
    from forumbot.cli import main
    from forumbot.game import nightrun
    from forumbot.game.state import engine_events
    from tests.forumbot.identity_support import actions_toml, events_toml

    ng, _ = played
    rt = ng.game.rt
    actions = nightrun.stored_actions(rt)
    events = [e for e in engine_events(rt.config, rt.store.events())
              if e.kind in (GameKind.OUT, GameKind.IDENTITY_LOST)]
    source = rt.config.path.read_text(encoding="utf-8")
    for night in (1, 2):
        start = rt.config.day(night).deadline
        before = [e for e in events if e.at <= start]
        copy = rt.config.path.with_name(f"offline-{night}.toml")
        copy.write_text(source + "\n" + events_toml(before) + "\n" + actions_toml(actions), encoding="utf-8")
        result = CliRunner().invoke(main, ["resolve", "--config", str(copy), "--night", str(night), "--json"])
        assert result.exit_code == 0, result.output
        offline = json.loads(result.output)
        agent = rt.store.night_proposal(night).data
        assert offline["deaths"] == agent["deaths"] and offline["marks"] == agent["marks"]
        assert offline["feedback"] == agent["feedback"] and offline["win"] == agent["win"]
        pick = lambda acts: [(a["actor"], a["skill"], a["target"], a["counted"], a["reason"]) for a in acts]  # noqa: E731
        assert pick(offline["actions"]) == pick(agent["actions"])
