"""``python -m forumbot.demo --nights``: the 14人简易 game whose nights the players play by
PM, the director only approving and confirming — both nights confirmed as scripted."""

from __future__ import annotations

from forumbot.demo.play import main


def test_demo_nights__plays_its_nights_by_pm(capsys):
    assert main(["--nights", "--quiet", "--keep-serving", "0", "--discuz", "7.2", "--gbk"]) == 0
    out = capsys.readouterr().out
    assert "14 名玩家" in out and "（GBK）" in out
    assert "第1晚（第1版，已确认）：出局 汤圆" in out
    assert "第2晚（第1版，已确认）：出局 春卷；标记 馄饨" in out
    assert "仍待处理的草稿：0 篇" in out and "（只有批准和确认）" in out
