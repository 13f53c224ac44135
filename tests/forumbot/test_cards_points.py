"""Cards follow the rule set (SPEC §5, issue 18): 双身份 counts points (角色因违反游戏规则，累计
扣满12分者将予以罚下) and has no colours. The ``card`` command, the desk's card page, the
ledger and the notices speak of points there, and of colours only under the ladder."""

from __future__ import annotations

import html
import os
import re

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.game.clock import AcceleratedClock
from forumbot.desk import create_app
from forumbot.store.outbox import DraftKind
from forumbot.game.runtime import CLOCK_ENV, clock_to_env, open_runtime
from forumbot.simulator import SimClock
from tests.forumbot.game_support import at, config_text

COLOURS = ("蓝牌", "黄牌", "红牌", "积分")


@pytest.fixture
def dual(tmp_path):
    config = tmp_path / "game.toml"
    config.write_text(config_text("dual", sheriff="饺子", database=str(tmp_path / "g.sqlite")), encoding="utf-8")
    os.environ[CLOCK_ENV] = clock_to_env(AcceleratedClock(origin=at(2, "12:00"), factor=1.0))
    open_runtime(config).close()  # the game's state, as forumbot init makes it
    yield config
    os.environ.pop(CLOCK_ENV, None)


@pytest.fixture
def simple14(tmp_path):
    config = tmp_path / "game.toml"
    config.write_text(config_text("simple14", database=str(tmp_path / "g.sqlite")), encoding="utf-8")
    os.environ[CLOCK_ENV] = clock_to_env(AcceleratedClock(origin=at(2, "12:00"), factor=1.0))
    open_runtime(config).close()  # the game's state, as forumbot init makes it
    yield config
    os.environ.pop(CLOCK_ENV, None)


def invoke(config, *args, input=None):
    return CliRunner().invoke(main, [args[0], "--config", str(config), *args[1:]], input=input,
                              catch_exceptions=False)


def notices(config) -> list[str]:
    rt = open_runtime(config)
    try:
        return [d.body for d in rt.outbox.drafts() if d.kind is DraftKind.CARD_NOTICE]
    finally:
        rt.close()


def test_card__points_mode_takes_points_without_a_colour(dual):
    done = invoke(dual, "card", "月饼", "--points", "3", "--why", "出局后在讨论帖发言")
    assert done.exit_code == 0, done.output
    assert "月饼：扣3分（累计 3/12 分）" in done.output and "判罚通知草稿" in done.output
    (notice,) = notices(dual)
    assert "[b]【违规判定】月饼：扣3分[/b]" in notice and "累计扣分：3/12（累计扣满12分罚下）" in notice
    assert not any(word in notice for word in COLOURS), notice
    shown = invoke(dual, "status")
    assert "已给判罚 #1：月饼 扣3分" in shown.output


def test_card__points_mode_refuses_a_colour_and_a_missing_number(dual):
    coloured = invoke(dual, "card", "月饼", "blue", "--why", "潜水")
    assert coloured.exit_code != 0 and "按扣分判罚，没有蓝牌、黄牌、红牌" in coloured.output
    bare = invoke(dual, "card", "月饼", "--why", "潜水")
    assert bare.exit_code != 0 and "请给出扣分" in bare.output
    assert "Traceback" not in coloured.output + bare.output
    assert notices(dual) == []


def test_card__twelve_points_send_off_after_asking(dual):
    assert invoke(dual, "card", "包子", "--points", "9", "--why", "刷屏").exit_code == 0
    asked = invoke(dual, "card", "包子", "--points", "3", "--why", "再次刷屏", input="n\n")
    assert asked.exit_code == 1 and "累计扣满12分罚下，确认？" in asked.output
    done = invoke(dual, "card", "包子", "--points", "3", "--why", "再次刷屏", input="y\n")
    assert done.exit_code == 0 and "包子：扣3分（累计 12/12 分），罚下" in done.output
    notice = notices(dual)[-1]
    assert "累计扣分：12/12" in notice and "包子 累计扣满12分，被罚下，无遗言。" in notice
    assert not any(word in notice for word in COLOURS), notice


def test_card__taking_a_deduction_back_says_points(dual):
    invoke(dual, "card", "月饼", "--points", "3", "--why", "记错了人")
    done = invoke(dual, "card-undo", "1", "--why", "不是月饼", "--yes")
    assert done.exit_code == 0 and "已撤销判罚 #1（月饼 的扣3分）" in done.output
    notice = notices(dual)[-1]
    assert "[b]【撤销判罚】月饼：扣3分[/b]" in notice and "此前公布的扣3分作废" in notice
    assert "累计扣分：0/12" in notice and not any(word in notice for word in COLOURS), notice


def test_card__the_ladder_takes_colours_not_points(simple14):
    refused = invoke(simple14, "card", "月饼", "blue", "--points", "3", "--why", "潜水")
    assert refused.exit_code != 0 and "不扣分" in refused.output
    done = invoke(simple14, "card", "月饼", "blue", "--why", "潜水")
    assert done.exit_code == 0 and "月饼：蓝牌" in done.output
    (notice,) = notices(simple14)
    assert "累计：蓝牌 1，黄牌 0，红牌 0" in notice and "扣分" not in notice


def _desk(config):
    clock = SimClock(start=at(2, "12:00"))
    app = create_app(config, clock=clock, secret_key=b"k" * 32)
    app.testing = True
    return app.test_client()


def _token(client) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get("/cards").get_data(as_text=True)).group(1)


def test_desk_cards__points_mode_has_no_colours(dual):
    rt = open_runtime(dual)
    try:
        rt.store.propose_card("烧卖", "points", "zombie", key="zombie:烧卖:day2", at=at(2, "11:00"), day=2,
                              detail="讨论帖5楼：已出局角色发言")
    finally:
        rt.close()
    client = _desk(dual)
    page = html.unescape(client.get("/cards").get_data(as_text=True))
    assert "累计扣满12分罚下" in page and "建议扣分" in page
    assert 'name="color"' in page and 'value="points"' in page and "（请选择牌色）" not in page
    assert not any(word in page for word in ("蓝牌", "黄牌", "红牌")), "colours on a points game's card page"
    # the director accepts the proposal with 4 points: confirm page, then the ledger
    form = {"why": "第2日诈尸", "points": "4", "csrf_token": _token(client)}
    confirm = html.unescape(client.post("/cards/1/accept", data=form).get_data(as_text=True))
    assert "给 烧卖 扣4分：第2日诈尸" in confirm and "累计扣分：0 → 4（满 12 分罚下）" in confirm
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', confirm))
    response = client.post("/cards/give/apply", data={**fields, "csrf_token": _token(client)})
    assert response.status_code == 302
    page = html.unescape(client.get("/cards").get_data(as_text=True))
    ledger = page.split('id="ledger"')[1].split("</table>")[0]
    assert "扣4分" in ledger and "4/12" in page.split('id="standings"')[1].split("</table>")[0]
    (notice,) = notices(dual)
    assert "[b]【违规判定】烧卖：扣4分[/b]" in notice and not any(word in notice for word in COLOURS)
