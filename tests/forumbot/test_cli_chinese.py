"""The director reads Chinese: every ``--help`` screen and every usage error of the
``forumbot`` command is Chinese (option names, command names, file names, TOML keys and
the like stay as typed)."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from forumbot.cli import main

# ASCII words a director may meet in Chinese help: names of formats and of the forum
# software, Discuz's own ids, a key. Anything else of three letters or more is English
# left on a screen. Keep this list short: each entry is a word the director must know.
ALLOWED = {"Discuz", "BBCode", "JSON", "TOML", "HTML", "UTF", "GBK", "ISO", "pid", "uid", "tid", "Ctrl-C"}

_STRIP = [  # what a director types or reads as a name, not as English prose
    r"https?://\S+",  # URLs
    r"\[\[?[a-z_.]+\]\]?(?:\.[a-z_]+)*",  # TOML tables and keys: [notify].enabled, [[events]], [site.settings]
    r"^\s*[a-z_]+(?=\s*=)",  # a TOML line's key (the simulator's script format)
    r"\b[a-z_]+(?= = )",  # … and a key after a comment's text
    r"(?<== )(?:true|false)\b",  # a TOML value
    r'"[^"\s]*"',  # a quoted value without spaces: "x3", "-2h", "utf-8"
    r"\[/?[a-z]+(?:=[^\]]*)?\]",  # BBCode tags
    r"\b[A-Z][A-Z_]*=\S*",  # an environment assignment: FORUMBOT_PASSWORD=…, EDITOR=nano
    r"\bFORUMBOT_[A-Z_]+\b",  # forumbot's environment variables
    r"\$\w+|\{[^}]*\}",  # placeholders
    r"(?<![\w-])--?[A-Za-z][\w-]*",  # option names
    r"\S*[/\\]\S*",  # paths and time zones: Asia/Shanghai, ../shared
    r"[\w.-]*\.(?:toml|json|html|txt|bbcode|db|log)\b",  # file names and their extensions
    r"\[[^\]\s]*\|[^\]\s]*\]|\{[^}\s]*\|[^}\s]*\}",  # choices: [blue|yellow|red]
]


def _walk(group: click.Group, path: tuple[str, ...] = ()):
    yield path, group
    ctx = click.Context(group, info_name="forumbot")
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _walk(command, (*path, name))
        else:
            yield (*path, name), command


COMMANDS = list(_walk(main))
COMMAND_NAMES = {name for path, _ in COMMANDS for name in path}


def _choices(command: click.Command) -> set[str]:
    return {str(c) for p in command.params if isinstance(p.type, click.Choice) for c in p.type.choices}


def english_words(text: str, command: click.Command | None = None) -> list[str]:
    """The English words left once names, paths, keys and the allowed words are taken out."""
    names = COMMAND_NAMES | (_choices(command) if command is not None else set())
    for pattern in _STRIP:
        text = re.sub(pattern, " ", text, flags=re.MULTILINE)
    text = re.sub(r"\bforumbot\b", " ", text)
    words = re.findall(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]", text)
    return [w for w in words if len(w) >= 3 and w not in ALLOWED and w not in names]


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args), prog_name="forumbot")


def test_the_walk_finds_the_commands():
    found = {path[-1] for path, _ in COMMANDS if path}
    assert {"approve", "status", "night", "card", "tally", "simulate", "run"} <= found


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "forumbot")
def test_help_is_chinese(path):
    command = dict(COMMANDS)[path]
    result = _invoke(*path, "--help")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("用法：forumbot"), out
    assert "选项：" in out and "显示本帮助并退出" in out
    left = english_words(out, command)
    assert not left, f"English in `forumbot {' '.join(path)} --help`: {sorted(set(left))}\n{out}"
    if path:  # every command shows the director an example line
        assert "例：" in out or "例如：" in out, out
        assert re.search(r"forumbot " + re.escape(" ".join(path)), out), out


def test_the_short_help_of_every_command_is_chinese():
    out = _invoke("--help").output
    assert "命令：" in out
    for path, command in COMMANDS:
        if path:
            assert re.search(r"[\u4e00-\u9fff]", command.get_short_help_str(60)), path


def test_the_english_detector_can_fail():
    assert english_words("Usage: forumbot approve [OPTIONS] DRAFT_ID") == ["Usage", "OPTIONS", "DRAFT"]
    assert english_words("Show this message and exit.") == ["Show", "this", "message", "and", "exit"]
    assert english_words("用 --json 输出 JSON；[notify].enabled = true 见 config.toml") == []


def test_version_is_chinese():
    result = _invoke("--version")
    assert result.exit_code == 0 and "版本" in result.output and not english_words(result.output)


def _usage_error(*args: str, says: str):
    result = _invoke(*args)
    assert result.exit_code == 2, result.output
    out = result.output
    assert f"错误：{says}" in out, out
    assert "Error" not in out and "Usage" not in out and "Try" not in out
    shown = out
    for typed in args:  # what the director typed comes back as typed
        shown = shown.replace(typed, " ")
    assert not english_words(shown, main.commands.get(args[0]) if args else None), out
    return out


def test_unknown_option():
    out = _usage_error("approve", "--x", says="没有这个选项：--x")
    assert "用法：forumbot approve [选项] 草稿编号" in out
    assert "「forumbot approve -h」查看帮助" in out
    assert out.strip().splitlines()[-1] == "错误：没有这个选项：--x"


def test_unknown_option_with_a_suggestion():
    _usage_error("drafts", "--al", says="没有这个选项：--al（是不是想用 --all")


def test_missing_argument():
    _usage_error("approve", says="缺少参数：草稿编号")


def test_missing_option():
    _usage_error("reject", "7", says="缺少选项：--why")


def test_bad_integer():
    _usage_error("retally", "--day", "x", says="选项 --day 的值无效：「x」不是整数")
    _usage_error("show", "七", says="参数 草稿编号 的值无效：「七」不是整数")


def test_out_of_range():
    _usage_error("evidence", "--day", "0", "--out", "x.json", says="选项 --day 的值无效：0 超出范围（至少 1）")


def test_bad_choice():
    _usage_error("card", "月饼", "green", "--why", "x", says="参数 颜色 的值无效：「green」不是可选的值（可选：blue、yellow、red）")
    _usage_error("out", "月饼", "--why", "flu", says="选项 --why 的值无效：「flu」不是可选的值")


def test_missing_choice_lists_the_choices():
    _usage_error("out", "月饼", says="缺少选项：--why（可选：vote、night、card、red、lover、hunter、other）")


def test_unknown_command():
    out = _usage_error("statsu", says="没有这个命令：statsu（是不是想用 status？）")
    assert "用法：forumbot [选项] 命令 [参数]..." in out
    assert "「forumbot -h」查看帮助" in out


def test_extra_argument():
    _usage_error("approve", "7", "8", says="多余的参数：8")


def test_option_without_its_value():
    _usage_error("reject", "7", "--why", says="选项 --why 后面要跟一个值")


def test_file_that_does_not_exist(tmp_path):
    missing = tmp_path / "nope.html"
    _usage_error("posts", "--pages", str(missing), says=f"选项 --pages 的值无效：文件「{missing}」不存在")


def test_a_command_s_own_usage_error_is_chinese():
    _usage_error("sheriff", "--config", "nope.toml", says="请给出玩家名，或用 --none 表示没有警长")


def test_an_unknown_message_falls_back_to_click_s_text():
    from forumbot.commands._help import chinese_message

    assert chinese_message(click.UsageError("something new in click")) == "something new in click"
    assert chinese_message(click.BadOptionUsage("--x", "Option '--x' is odd.")) == "Option '--x' is odd."


def test_no_arguments_shows_the_chinese_help():
    result = _invoke()
    assert "用法：forumbot" in result.output and "命令：" in result.output
    assert not english_words(result.output)


def test_a_command_registered_later_speaks_chinese_too():
    """A module that builds its command with plain ``@click.command`` (as a new one
    would) is adopted when the group adds it: Chinese help, Chinese errors, 已取消."""
    from forumbot.commands._help import ChineseGroup

    @click.command("later")
    @click.option("--times", type=int, default=1, show_default=True, help="几次。")
    def later(times: int) -> None:
        """以后加的命令。

        例：forumbot later --times 2
        """
        click.confirm("继续？", abort=True)

    group = ChineseGroup("forumbot")
    group.add_command(later)
    runner = CliRunner()
    help_text = runner.invoke(group, ["later", "--help"], prog_name="forumbot").output
    assert help_text.startswith("用法：forumbot later [选项]") and "--times 整数" in help_text
    assert "[默认：1]" in help_text and not english_words(help_text.replace("later", ""))
    bad = runner.invoke(group, ["later", "--times", "x"], prog_name="forumbot")
    assert bad.exit_code == 2 and "错误：选项 --times 的值无效：「x」不是整数" in bad.output
    cancelled = runner.invoke(group, ["later"], input="", prog_name="forumbot")
    assert cancelled.exit_code == 1 and "已取消。" in cancelled.output and "Aborted" not in cancelled.output


def test_help_lines_fit_an_80_column_terminal():
    """A Chinese character takes two columns: the help is wrapped by what the terminal
    shows, not by the number of characters (example command lines stay whole)."""
    from forumbot.commands._help import text_width

    for path, _ in COMMANDS:
        out = CliRunner().invoke(main, [*path, "--help"], prog_name="forumbot", env={"COLUMNS": "80"}).output
        for line in out.splitlines():
            assert text_width(line) <= 80 or line.lstrip().startswith("forumbot "), (path, line)


def test_chinese_wrapping_joins_docstring_lines_without_spaces():
    from forumbot.commands._help import wrap_paragraphs

    assert wrap_paragraphs("一二三\n四五 --day\n六", 80) == "一二三四五 --day 六"
    assert wrap_paragraphs("一二三四五六七八。", 8) == "一二三四\n五六七\n八。"  # 。 never starts a line
    assert wrap_paragraphs("段一\n\n    forumbot tally --day 2 --pages a.html b.html", 20).splitlines()[-1] == \
        "    forumbot tally --day 2 --pages a.html b.html"
