"""Templates produce Discuz BBCode; player-written text can never restyle the post."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from forumbot.game.render import BBCode, bb_escape, make_environment, render
from forumbot.game.views import AnnouncementView, CardLine, OutLine, count_view, format_left

TZ = ZoneInfo("Asia/Shanghai")
DEADLINE = datetime(2026, 11, 30, 21, 30, tzinfo=TZ)


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("饺子", "饺子"),
        ("[size=7]饺子[/size]", "&#091;size=7&#093;饺子&#091;/size&#093;"),
        ("[/table][b]假票[/b]", "&#091;/table&#093;&#091;b&#093;假票&#091;/b&#093;"),
        ("包子\n[url=http://x]点我[/url]", "包子 &#091;url=http://x&#093;点我&#091;/url&#093;"),
        ("&#91;b&#93;", "&#038;#91;b&#038;#93;"),
        ("a\x00b\x1fc", "abc"),
        (None, ""),
        (3, "3"),
    ],
    ids=["plain", "size", "table-break", "newline-url", "entity-smuggle", "control", "none", "int"],
)
def test_bb_escape__player_text(raw, expected):
    assert bb_escape(raw) == expected


def test_bb_escape__is_idempotent_on_bbcode_marked_safe():
    once = bb_escape("[b]x[/b]")
    assert bb_escape(once) == once
    assert bb_escape(BBCode("[b]bot[/b]")) == "[b]bot[/b]"


def _tally():
    return {
        "day": 2,
        "ruleset": "s10",
        "deadline": DEADLINE.isoformat(),
        "votes": [
            {"floor": 2, "pid": 3, "voter": "饺子", "kind": "vote", "target": "包子", "weight": 2, "valid": True, "final": True, "reason": None},
            {"floor": 3, "pid": 4, "voter": "[b]坏人[/b]", "kind": "vote", "target": "饺子", "weight": 1, "valid": True, "final": True, "reason": None},
            {"floor": 4, "pid": 5, "voter": "汤圆", "kind": "vote", "target": "弃权", "weight": 1, "valid": True, "final": True, "reason": None},
            {"floor": 6, "pid": 7, "voter": "月饼", "kind": "change", "target": None, "weight": 1, "valid": False, "reason": "change_without_quote"},
            {"floor": 7, "pid": 8, "voter": "导演", "kind": "vote", "target": None, "weight": 0, "valid": False, "reason": "voter_not_player"},
        ],
        "counts": {"包子": 2, "饺子": 1},
        "abstain": 1,
        "non_voters": ["月饼"],
        "result": {"out": "包子", "sheriff": None, "tie": [], "rule": "most votes"},
        "flags": [],
    }


def _view(**kw):
    defaults = dict(
        tid=12,
        now=DEADLINE - timedelta(hours=1, minutes=5),
        deadline=DEADLINE,
        final=False,
        counts_only=False,
        sheriff="饺子",
        sheriff_weight=2,
        describe_reason=lambda code: {"change_without_quote": "改票未引用原投票"}[code],
    )
    defaults.update(kw)
    return count_view(_tally(), **defaults)


def test_running_count__lists_targets_voters_links_void_and_time_left():
    text = render(make_environment(), "running_count.bbcode.j2", {"count": _view()})
    assert "【计票】第2日" in text
    assert "[tr][td]包子[/td][td]2[/td]" in text
    assert "[url=forum.php?mod=redirect&goto=findpost&ptid=12&pid=3]饺子[/url](2楼·×2)" in text
    assert "&#091;b&#093;坏人&#091;/b&#093;" in text and "[b]坏人" not in text
    assert "弃权：1（" in text and "pid=5]汤圆" in text
    assert "6楼[/url] 月饼：改票未引用原投票" in text
    assert "导演" not in text  # non-players' posts are not void votes, they are not votes
    assert "未投票（1）：月饼" in text
    assert "剩余 1小时05分" in text
    assert "结果" not in text


def test_running_count__counts_only_hides_voter_names():
    text = render(make_environment(), "running_count.bbcode.j2", {"count": _view(counts_only=True)})
    assert "[tr][td]包子[/td][td]2[/td][/tr]" in text
    assert "pid=3]饺子" not in text


def test_final_count__shows_result():
    view = _view(final=True, now=DEADLINE + timedelta(minutes=3))
    text = render(make_environment(), "final_count.bbcode.j2", {"count": view})
    assert "【最终计票】" in text
    assert "[b]结果：包子 出局[/b]" in text
    assert "剩余" not in text


def test_templates__balanced_bbcode_tags():
    text = render(make_environment(), "running_count.bbcode.j2", {"count": _view()})
    for tag in ("table", "tr", "td", "url", "b"):
        opened = len(re.findall(rf"\[{tag}(=[^\]]*)?\]", text))
        assert opened == text.count(f"[/{tag}]"), tag


def test_announcement__every_out_in_order_with_why_and_no_identities():
    """SPEC §9: every out since the last announcement in the order it took effect (daytime
    outs, then the vote-out, then the night), with why; 公示出局名单时按角色出局的顺序排序."""
    view = AnnouncementView(
        day=3, vote_day=2, vote_line="包子 出局",
        outs=(OutLine("烧卖", "出局", "猎人开枪", "12-02 15:00"), OutLine("包子", "出局", "投票"),
              OutLine("汤圆", "出局", "夜晚"), OutLine("Alice", "出局", "夜晚")),
        night_quiet=False, sheriff="饺子", cards=(CardLine("月饼", "黄牌", "未投票"),), alive=("饺子", "月饼"),
        next_deadline="2026-12-01 21:30",
    )
    text = render(make_environment(), "announcement.bbcode.j2", {"a": view})
    assert "第2日投票结果：[b]包子 出局[/b]" in text
    assert ("出局（按时间顺序）：\n1. 烧卖：出局（猎人开枪，12-02 15:00）\n2. 包子：出局（投票）\n"
            "3. 汤圆：出局（夜晚）\n4. Alice：出局（夜晚）") in text
    assert "平安夜" not in text
    assert "现任警长：饺子" in text
    assert "月饼：黄牌（未投票）" in text


def test_announcement__dual_says_identity_death_and_a_vacant_badge():
    """双身份: 公示身份死亡/出局名单时按角色身份死亡/出局的时间顺序排序."""
    view = AnnouncementView(
        day=3, vote_day=2, vote_line="包子 身份死亡", outs=(OutLine("包子", "身份死亡", "投票"),),
        night_quiet=True, sheriff=None, badge_vacant=True, badge_note="等待原警长 饺子 指定继任者", dual=True,
    )
    text = render(make_environment(), "announcement.bbcode.j2", {"a": view})
    assert "身份死亡/出局（按时间顺序）：\n1. 包子：身份死亡（投票）" in text
    assert "昨夜平安夜，无人身份死亡。" in text
    assert "警长：空缺（等待原警长 饺子 指定继任者）" in text


@pytest.mark.parametrize(
    "delta, expected",
    [(timedelta(minutes=5), "5分"), (timedelta(hours=2, minutes=3), "2小时03分"),
     (timedelta(days=1, minutes=1), "1天0小时01分"), (timedelta(0), "已截止"), (timedelta(minutes=-3), "已截止")],
)
def test_format_left__cases(delta, expected):
    assert format_left(delta) == expected


# ---------------------------------------------------------------- links (issue 18 #7)

@pytest.mark.parametrize(("generation", "base_url", "link"), [
    # 7.2 links only absolute addresses: the bot's links start with [forum].base_url
    ("7.2", "http://bbs.example.com/", "[url=http://bbs.example.com/redirect.php?goto=findpost&pid=3&ptid=12]饺子[/url]"),
    ("7.2", "http://127.0.0.1:8072/bbs", "[url=http://127.0.0.1:8072/bbs/redirect.php?goto=findpost&pid=3&ptid=12]饺子[/url]"),
    # X3 takes either; the absolute one too
    ("x3", "https://bbs.example.com/", "[url=https://bbs.example.com/forum.php?mod=redirect&goto=findpost&ptid=12&pid=3]饺子[/url]"),
    (None, "https://bbs.example.com/", "[url=https://bbs.example.com/forum.php?mod=redirect&goto=findpost&ptid=12&pid=3]饺子[/url]"),
    # nothing in the address may end the tag early
    ("7.2", "http://bbs.example.com/my bbs]/", "[url=http://bbs.example.com/my%20bbs%5D/redirect.php?goto=findpost&pid=3&ptid=12]饺子[/url]"),
    # no address known (a config that posts nothing): relative
    ("x3", None, "[url=forum.php?mod=redirect&goto=findpost&ptid=12&pid=3]饺子[/url]"),
])
def test_running_count__voter_links_are_absolute_in_the_generations_scheme(generation, base_url, link):
    env = make_environment(base_url=base_url, generation=generation)
    text = render(env, "running_count.bbcode.j2", {"count": _view()})
    assert f"{link}(2楼·×2)" in text


def test_use_generation__and_use_base_url_change_the_links_of_an_environment():
    from forumbot.game.render import use_base_url, use_generation

    env = make_environment()
    use_base_url(env, "http://bbs.example.com")
    use_generation(env, "7.2")
    text = render(env, "running_count.bbcode.j2", {"count": _view()})
    assert "[url=http://bbs.example.com/redirect.php?goto=findpost&pid=3&ptid=12]饺子[/url]" in text
