"""``forumbot posts``: saved pages → table or JSON, deduplicated by pid."""

from __future__ import annotations

import json

from click.testing import CliRunner

from forumbot.cli import main
from tests.parsers.test_html_page import TID2

JSON_FIELDS = {"pid", "floor", "author", "author_uid", "posted_at", "edited_at", "quotes",
               "text", "vote"}


def _run(*args: str):
    return CliRunner().invoke(main, ["posts", *args], catch_exceptions=False)


def test_cmd_posts__json_over_all_tid2_pages(x3_dir) -> None:
    pages = [str(x3_dir / f"viewthread-tid2-page{k}.html") for k in (1, 2, 3)]
    result = _run("--json", "--pages", *pages)
    assert result.exit_code == 0, result.output
    records = json.loads(result.output)
    assert [(r["floor"], r["pid"], r["author"], r["author_uid"]) for r in records] == [
        (r[0], r[1], r[2], r[3]) for r in TID2]
    for record, row in zip(records, TID2):
        assert JSON_FIELDS <= set(record)
        assert record["posted_at"] == row[4].replace(" ", "T") + "+08:00"
        assert [q["pid"] for q in record["quotes"]] == ([row[5]] if row[5] else [])
    by_pid = {r["pid"]: r for r in records}
    assert by_pid[11]["quotes"] == [{"pid": 5, "author": "汤圆"}]
    assert by_pid[8]["edited_at"] == "2026-11-30T00:26:00+08:00" and by_pid[3]["edited_at"] is None
    assert by_pid[3]["vote"] == {"kind": "vote", "target": "包子", "reason": "包子昨晚发言很可疑",
                                 "problem": None}
    assert by_pid[15]["vote"]["kind"] == "change" and by_pid[15]["vote"]["target"] == "汤圆"
    assert by_pid[7]["vote"] is None
    assert by_pid[13]["notice"] == "banned_author" and by_pid[13]["text"] == ""
    assert "汤圆" in result.output  # ensure_ascii=False: names as UTF-8, not \\u escapes


def test_cmd_posts__dedupes_html_and_api_copies(x3_dir) -> None:
    result = _run("--json", "--pages", str(x3_dir / "viewthread-tid2-page1.html"),
                  str(x3_dir / "mobileapi-viewthread-tid2-page1.json"),
                  str(x3_dir / "viewthread-tid2-page1-loggedin.html"))
    records = json.loads(result.output)
    assert [r["pid"] for r in records] == [r[1] for r in TID2 if r[6] == 1]
    # The first file wins: the HTML copy of pid 8 still has its edit stamp.
    assert next(r for r in records if r["pid"] == 8)["edited_by"] == "月饼"


def test_cmd_posts__table(x3_dir) -> None:
    result = _run("--pages", str(x3_dir / "viewthread-tid2-page2.html"))
    assert result.exit_code == 0
    assert "共 10 个帖子" in result.output and "计票机器人" in result.output


def test_cmd_posts__not_a_thread_page_is_one_line_error(x3_dir) -> None:
    result = _run("--pages", str(x3_dir / "viewthread-tid9999-not-exist.html"))
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"错误：{x3_dir / 'viewthread-tid9999-not-exist.html'}: 不是帖子页面，"
        "论坛说：抱歉，指定的主题不存在或已被删除或正在被审核"]


def test_cmd_posts__bad_zone(x3_dir) -> None:
    result = _run("--tz", "Mars/Base", "--pages", str(x3_dir / "viewthread-tid2-page2.html"))
    assert result.exit_code == 1 and "未知的时区：Mars/Base" in result.output


def test_cmd_posts__help_has_example() -> None:
    result = _run("--help")
    assert result.exit_code == 0 and "例：" in result.output and "--json" in result.output
