"""``forumbot inbox`` on real saved PM pages (../shared/fixtures/discuz-pm)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from tests.support import fixture_dir

pytestmark = pytest.mark.fixtures


def page(name: str) -> str:
    gen, _, rest = name.partition("/")
    folder = fixture_dir("discuz-pm") / gen
    return str(next(folder.glob(rest + "*.body")))


def run(*args: str):
    return CliRunner().invoke(main, ["inbox", *args])


def test_inbox__json_has_exactly_the_five_keys_both_versions() -> None:
    result = run("--pages", page("x35/42_"), "--json", "--now", "2026-12-01T09:40:21+08:00")
    assert result.exit_code == 0, result.output
    records = json.loads(result.output)
    assert [set(r) for r in records] == [{"id", "from", "uid", "time", "text"}] * 3
    assert [(r["id"], r["from"], r["uid"], r["text"]) for r in records] == [
        (1, "导演", 2, "批准 #12"), (2, "导演", 2, "驳回 #13 理由：票数不对"),
        (3, "投票机", 3, "草稿 #14 等待批准：第二天计票（终）")]
    assert records[2]["time"] == "2026-12-01T09:40:02+08:00"
    d72 = json.loads(run("--pages", page("d72/38_"), "--json").output)
    assert [(r["id"], r["from"], r["uid"]) for r in d72][:2] == [(3, "导演", 2), (4, "导演", 2)]
    assert d72[0]["time"] == "2026-12-01T09:40:00+08:00"


def test_inbox__several_pages_merge_by_id_and_the_api_reads_too() -> None:
    result = run("--pages", page("x35/24_"), page("x35/39_"), page("x35/43_"), "--json",
                 "--now", "2026-12-01T09:40:38+08:00")
    assert [r["id"] for r in json.loads(result.output)] == [1, 2, 3, 4]


def test_inbox__table_speaks_chinese() -> None:
    result = run("--pages", page("d72/19_"))
    assert result.exit_code == 0, result.output
    for heading in ("编号", "发信人", "UID", "时间", "内容", "共 2 条短消息"):
        assert heading in result.output
    assert "批准 #12" in result.output


@pytest.mark.parametrize(("name", "why"), [("x35/05_", "不是站内信页面"),
                                           ("x35/20_", "收件箱列表"), ("d72/32_", "空页面")])
def test_inbox__a_page_it_cannot_read_fails_naming_it(name: str, why: str) -> None:
    path = page(name)
    result = run("--pages", page("x35/24_"), path)
    assert result.exit_code != 0
    assert path in result.output and why in result.output
