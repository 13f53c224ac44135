"""The CLI in Chinese: help screens and usage errors (the director reads no English).

``ChineseGroup`` is the ``forumbot`` group's class. Every command added to it — the
``commands`` lists under ``forumbot/commands/``, whatever registers them later — is
adopted (``chinese()``): it then writes its help with Chinese headings, type names and
line wrapping that counts a Chinese character as two columns, and its usage errors
become ``ChineseUsageError``, which prints::

    用法：forumbot approve [选项] 草稿编号
    「forumbot approve -h」查看帮助
    错误：没有这个选项：--x

Click's messages are translated from the exception's class and the data it carries
(the option's name, the parameter, its type); where click only passes a sentence (a
value that is not an integer), the sentence is matched per type, and a message not in
the table is shown as click wrote it. Nothing global in click is changed: only classes
of our own commands, their context and their help formatter. Exit codes stay click's
(2 for a usage error).
"""

from __future__ import annotations

import inspect
import re
import unicodedata
from typing import Any, Callable, Iterable, Sequence

import click
from click.formatting import HelpFormatter, join_options

__all__ = ["ChineseCommand", "ChineseGroup", "ChineseUsageError", "chinese", "chinese_message",
           "HELP_OPTION_HELP", "VERSION_OPTION_HELP", "VERSION_MESSAGE"]

HELP_OPTION_HELP = "显示本帮助并退出。"
VERSION_OPTION_HELP = "显示版本并退出。"
VERSION_MESSAGE = "%(prog)s 版本 %(version)s"

# Section names click passes to ``formatter.section`` (untranslated: click ships no catalogue).
_HEADINGS = {"Options": "选项", "Commands": "命令", "Positional arguments": "参数", "Arguments": "参数"}
# Click's default usage pieces.
_USAGE_PIECES = {
    "[OPTIONS]": "[选项]",
    "COMMAND [ARGS]...": "命令 [参数]...",
    "[COMMAND] [ARGS]...": "[命令] [参数]...",
    "COMMAND1 [ARGS]... [COMMAND2 [ARGS]...]...": "命令1 [参数]... [命令2 [参数]...]...",
    "[COMMAND1] [ARGS]... [COMMAND2 [ARGS]...]...": "[命令1] [参数]... [命令2 [参数]...]...",
}


# ------------------------------------------------------------------ width and wrapping

def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def text_width(text: str) -> int:
    """Columns on a terminal: a Chinese character or full-width mark takes two."""
    return sum(2 if _wide(ch) else 0 if unicodedata.combining(ch) else 1 for ch in text)


_NO_LINE_START = set("，。、；：！？）」』》】〉…,.;:!?)]}%")
_NO_LINE_END = set("（「『《【〈([{")


def _units(text: str) -> list[str]:
    """Whitespace runs, single wide characters, bracketed notes without spaces
    (「[默认：config.toml]」), and runs of other characters (an ASCII word, an option
    name, a path) — the last two never broken."""
    units: list[str] = []
    for m in re.finditer(r"\s+|\[[^\[\]\s]{1,40}\]|\S", text):
        piece = m.group()
        if len(piece) > 1 or piece.isspace() or _wide(piece):
            units.append(piece)
        elif units and not units[-1].isspace() and not _wide(units[-1][-1]):
            units[-1] += piece
        else:
            units.append(piece)
    return units


def wrap(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "") -> str:
    """Greedy line filling by display width. A line breaks at a space or next to a
    Chinese character, never inside an ASCII word; a closing mark (，。）) never starts
    a line nor an opening one (（「) ends it: the character before moves down with it."""
    lines: list[str] = []
    indent = initial_indent
    pieces: list[tuple[int, str]] = []  # (spaces before, unit) on the line being filled
    space = False

    def used() -> int:
        return text_width(indent) + sum(gap + text_width(unit) for gap, unit in pieces)

    def bad_break(before: str, after: str) -> bool:
        return after[0] in _NO_LINE_START or before[-1] in _NO_LINE_END

    for unit in _units(text):
        if unit.isspace():
            space = bool(pieces)
            continue
        gap, space = (1 if space else 0), False
        if not pieces or used() + gap + text_width(unit) <= width:
            pieces.append((gap, unit))
            continue
        carry = [(gap, unit)]
        while len(pieces) > 1 and bad_break(pieces[-1][1], carry[0][1]):
            carry.insert(0, pieces.pop())
        if bad_break(pieces[-1][1], carry[0][1]):  # nothing left to move down: let it hang
            pieces += carry
            continue
        lines.append((indent + "".join(" " * g + u for g, u in pieces)).rstrip())
        indent = subsequent_indent
        pieces = [(0, carry[0][1]), *carry[1:]]
    lines.append((indent + "".join(" " * g + u for g, u in pieces)).rstrip())
    return "\n".join(lines)


def _join_lines(lines: Iterable[str]) -> str:
    """A paragraph's source lines as one: no space between two Chinese characters
    (a docstring breaks its lines anywhere), one space otherwise."""
    out = ""
    for line in (ln.strip() for ln in lines):
        if not line:
            continue
        if out and not (_wide(out[-1]) and _wide(line[0])):
            out += " "
        out += line
    return out


def wrap_paragraphs(text: str, width: int, indent: str = "") -> str:
    """Click's ``wrap_text(preserve_paragraphs=True)`` with Chinese widths: paragraphs
    are separated by a blank line and refilled; a paragraph whose first line is ``\\b``
    and an indented paragraph (an example command line, which must stay one line to be
    copied) are kept as written."""
    paragraphs: list[tuple[int, bool, list[str]]] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            first = current[0]
            raw = first.strip() == "\b"
            lines = current[1:] if raw else current
            lead = len(first) - len(first.lstrip()) if not raw else 0
            paragraphs.append((lead, raw or lead > 0, list(lines)))
            current.clear()

    for line in text.expandtabs().splitlines():
        if line.strip():
            current.append(line)
        else:
            flush()
    flush()
    out = []
    for lead, raw, lines in paragraphs:
        if raw:
            out.append("\n".join((indent + ln).rstrip() for ln in lines))
        else:
            out.append(wrap(_join_lines(lines), width, indent, indent))
    return "\n\n".join(out)


def shorten(text: str, limit: int) -> str:
    if text_width(text) <= limit:
        return text
    out, used = "", 0
    for ch in text:
        if used + text_width(ch) > limit - 1:
            break
        out, used = out + ch, used + text_width(ch)
    return out.rstrip() + "…"


class ChineseFormatter(HelpFormatter):
    """Click's help formatter with Chinese headings and the usage prefix 「用法：」,
    measuring and wrapping by display width."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        prefix = "用法：" if prefix is None else prefix
        head = f"{'':>{self.current_indent}}{prefix}{prog}"
        if not args:
            self.write(head + "\n")
            return
        pad = " " * text_width(head + " ")
        if self.width - text_width(pad) >= 20:
            self.write(wrap(args, self.width, head + " ", pad) + "\n")
        else:
            pad = " " * (self.current_indent + 4)
            self.write(head + "\n" + wrap(args, self.width, pad, pad) + "\n")

    def write_heading(self, heading: str) -> None:
        self.write(f"{'':>{self.current_indent}}{_HEADINGS.get(heading, heading)}：\n")

    def write_text(self, text: str) -> None:
        self.write(wrap_paragraphs(text, self.width, " " * self.current_indent) + "\n")

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        rows = [(a, b) for a, b in rows]
        if not rows:
            return
        first_col = min(max(text_width(a) for a, _ in rows), col_max) + col_spacing
        indent = " " * self.current_indent
        for term, text in rows:
            self.write(indent + term)
            if not text:
                self.write("\n")
                continue
            if text_width(term) <= first_col - col_spacing:
                self.write(" " * (first_col - text_width(term)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            body = wrap_paragraphs(text, max(self.width - first_col - self.current_indent, 20))
            lines = body.splitlines() or [""]
            self.write(lines[0] + "\n")
            for line in lines[1:]:
                self.write((" " * (first_col + self.current_indent) + line).rstrip() + "\n")


class ChineseContext(click.Context):
    formatter_class = ChineseFormatter


# ------------------------------------------------------------------ type names

def _type_word(kind: click.ParamType) -> str | None:
    """The Chinese name of a parameter's type, as its metavar."""
    if isinstance(kind, click.File):
        return "文件"
    if isinstance(kind, click.Path):
        if kind.file_okay and not kind.dir_okay:
            return "文件"
        if kind.dir_okay and not kind.file_okay:
            return "文件夹"
        return "路径"
    for cls, word in ((click.types.BoolParamType, "是/否"), (click.types.IntParamType, "整数"),
                      (click.types.FloatParamType, "数字"), (click.types.StringParamType, "文字"),
                      (click.DateTime, "日期时间"), (click.types.UUIDParameterType, "编号")):
        if isinstance(kind, cls):
            return word
    return None


def _metavar(param: click.Parameter, ctx: click.Context) -> str:
    if param.metavar is not None or isinstance(param, click.Argument):
        return param.make_metavar(ctx)  # arguments name their metavar (草稿编号)
    word = None if isinstance(param.type, click.Choice) else _type_word(param.type)
    if word is None:
        return param.make_metavar(ctx)  # choices [a|b] and unknown types as click shows them
    return word + ("..." if param.nargs != 1 else "")


def range_words(kind: Any) -> str:
    """A number range as the director reads it: 「至少 1」, 「1 到 10」, 「大于 0」."""
    low, high = getattr(kind, "min", None), getattr(kind, "max", None)
    low_open, high_open = getattr(kind, "min_open", False), getattr(kind, "max_open", False)
    if low is not None and high is not None and not low_open and not high_open:
        return f"{low} 到 {high}"
    parts = []
    if low is not None:
        parts.append(f"{'大于' if low_open else '至少'} {low}")
    if high is not None:
        parts.append(f"{'小于' if high_open else '至多'} {high}")
    return "，".join(parts)


def option_record(option: click.Option, ctx: click.Context) -> tuple[str, str] | None:
    """An option's row in 选项: its names and Chinese metavar, its help and, in brackets,
    its default, environment variable, range and whether it is required."""
    if option.hidden:
        return None
    if not hasattr(option, "get_help_extra"):  # click < 8.2: its own row
        return option.get_help_record(ctx)

    def names(opts: Sequence[str]) -> str:
        text, _ = join_options(opts)
        return text if option.is_flag or option.count else f"{text} {_metavar(option, ctx)}"

    spec = " / ".join(names(o) for o in (option.opts, option.secondary_opts) if o)
    extra = option.get_help_extra(ctx)
    items = []
    if "envvars" in extra:
        items.append("环境变量：" + "、".join(extra["envvars"]))
    if "default" in extra:
        items.append(f"默认：{extra['default']}")
    if "range" in extra:
        items.append(range_words(option.type) or extra["range"])
    if "required" in extra:
        items.append("必填")
    help_text = option.help or ""
    if items:
        gap = "" if not help_text or _wide(help_text[-1]) else "  "
        help_text = f"{help_text}{gap}[{'；'.join(items)}]"
    return spec, help_text


# ------------------------------------------------------------------ usage errors

def _label(param: click.Parameter | None, hint: Any, ctx: click.Context | None) -> str:
    """「选项 --day」, 「参数 草稿编号」: the parameter as the director typed or reads it."""
    if hint is not None:
        return hint if isinstance(hint, str) else " / ".join(hint)
    if param is None:
        return ""
    if isinstance(param, click.Argument):
        name = param.make_metavar(ctx) if ctx is not None else (param.name or "").upper()
        return "参数 " + name.strip("[]{}.")
    return "选项 " + " / ".join(param.opts)


def _value(text: str) -> str:
    """click quotes a bad value with repr(): show it in 「」."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return f"「{text}」"


def _choices(kind: Any) -> str:
    return "、".join(str(c) for c in getattr(kind, "choices", ()))


_PATH_KIND = {"File": "文件", "Directory": "文件夹", "Path": "路径"}


# (type, click's sentence, the Chinese) — tried in order for a BadParameter's message.
_VALUE_MESSAGES: list[tuple[type, str, Callable[[re.Match[str], Any], str]]] = [
    (click.Choice, r"(?P<v>.+) is not (?:one of )?.+\.",
     lambda m, t: f"{_value(m['v'])}不是可选的值（可选：{_choices(t)}）"),
    (click.types._NumberRangeBase, r"(?P<v>.+) is not in the range (?P<r>.+)\.",
     lambda m, t: f"{m['v']} 超出范围（{range_words(t) or m['r']}）"),
    (click.types.IntParamType, r"(?P<v>.+) is not a valid integer\.", lambda m, t: f"{_value(m['v'])}不是整数"),
    (click.types.FloatParamType, r"(?P<v>.+) is not a valid float\.", lambda m, t: f"{_value(m['v'])}不是数字"),
    (click.types.BoolParamType, r"(?P<v>.+) is not a valid boolean\..*",
     lambda m, t: f"{_value(m['v'])}不是是/否（可用 true/false、yes/no、1/0）"),
    (click.DateTime, r"(?P<v>.+) does not match the formats? (?P<f>.+)\.",
     lambda m, t: f"{_value(m['v'])}不符合日期时间格式 {m['f']}"),
    (click.Path, r"(?P<k>\w+) (?P<f>.+) does not exist\.",
     lambda m, t: f"{_PATH_KIND.get(m['k'], '路径')}{_value(m['f'])}不存在"),
    (click.Path, r"(?P<k>\w+) (?P<f>.+) is a directory\.", lambda m, t: f"{_value(m['f'])}是文件夹，这里要的是文件"),
    (click.Path, r"(?P<k>\w+) (?P<f>.+) is a file\.", lambda m, t: f"{_value(m['f'])}是文件，这里要的是文件夹"),
    (click.Path, r"(?P<k>\w+) (?P<f>.+) is not readable\.", lambda m, t: f"{_value(m['f'])}无法读取（没有权限）"),
    (click.Path, r"(?P<k>\w+) (?P<f>.+) is not writable\.", lambda m, t: f"{_value(m['f'])}无法写入（没有权限）"),
    (click.Path, r"(?P<k>\w+) (?P<f>.+) is not executable\.", lambda m, t: f"{_value(m['f'])}不可执行"),
]

# click's own sentences for errors that carry no more than the sentence.
_PLAIN_MESSAGES: list[tuple[str, Callable[[re.Match[str]], str]]] = [
    (r"Got unexpected extra arguments? \((?P<a>.*)\)", lambda m: f"多余的参数：{m['a']}"),
    (r"No such command (?P<c>.+)\.", lambda m: f"没有这个命令：{_value(m['c'])[1:-1]}"),
    (r"Missing command\.", lambda m: "缺少命令"),
]
_OPTION_USAGE: list[tuple[str, Callable[[re.Match[str], str], str]]] = [
    (r"Option .+ requires an argument\.", lambda m, o: f"选项 {o} 后面要跟一个值"),
    (r"Option .+ requires (?P<n>\d+) arguments\.", lambda m, o: f"选项 {o} 后面要跟 {m['n']} 个值"),
    (r"Option .+ does not take a value\.", lambda m, o: f"选项 {o} 不带值"),
]


def _maybe(possibilities: Sequence[str] | None) -> str:
    return f"（是不是想用 {'、'.join(possibilities)}？）" if possibilities else ""


def _missing(exc: click.MissingParameter) -> str:
    param = exc.param
    kind = exc.param_type or (param.param_type_name if param is not None else "parameter")
    word = "选项" if kind == "option" else "参数"
    if param is None:
        label = _label(None, exc.param_hint, exc.ctx)
    elif isinstance(param, click.Argument):
        label = _label(param, exc.param_hint, exc.ctx).removeprefix("参数 ")
    else:
        label = _label(param, exc.param_hint, exc.ctx).removeprefix("选项 ")
    text = f"缺少{word}" + (f"：{label}" if label else "")
    if param is not None and isinstance(param.type, click.Choice):
        text += f"（可选：{_choices(param.type)}）"
    return text + (f"。{exc.message}" if exc.message else "")


def _bad_value(exc: click.BadParameter) -> str:
    kind = exc.param.type if exc.param is not None else None
    reason = exc.message
    for cls, pattern, say in _VALUE_MESSAGES:
        if kind is not None and isinstance(kind, cls):
            m = re.fullmatch(pattern, exc.message, flags=re.DOTALL)
            if m:
                reason = say(m, kind)
                break
    label = _label(exc.param, exc.param_hint, exc.ctx)
    return f"{label} 的值无效：{reason}" if label else f"值无效：{reason}"


def chinese_message(exc: click.UsageError) -> str:
    """The usage error in Chinese, from its class and what it carries; click's own
    text when it is a case the table does not know."""
    if isinstance(exc, ChineseUsageError):
        return exc.message
    no_such_command = getattr(click.exceptions, "NoSuchCommand", None)  # click ≥ 8.4
    if isinstance(exc, click.NoSuchOption):
        return f"没有这个选项：{exc.option_name}{_maybe(exc.possibilities)}"
    if no_such_command is not None and isinstance(exc, no_such_command):
        return f"没有这个命令：{exc.command_name}{_maybe(exc.possibilities)}"
    if isinstance(exc, click.MissingParameter):
        return _missing(exc)
    if isinstance(exc, click.BadParameter):
        return _bad_value(exc)
    if isinstance(exc, click.BadOptionUsage):
        for pattern, say in _OPTION_USAGE:
            m = re.fullmatch(pattern, exc.message)
            if m:
                return say(m, exc.option_name)
        return exc.format_message()
    for pattern, say_plain in _PLAIN_MESSAGES:
        m = re.fullmatch(pattern, exc.message)
        if m:
            return say_plain(m)
    return exc.format_message()


class ChineseUsageError(click.UsageError):
    """A usage error as the director reads it: the usage line, where the help is, and
    「错误：…」 last (the line beside the prompt). ``original`` is click's exception."""

    def __init__(self, original: click.UsageError) -> None:
        super().__init__(chinese_message(original), original.ctx)
        self.original = original

    def show(self, file: Any = None) -> None:
        ctx = self.ctx
        color = ctx.color if ctx is not None else None
        if ctx is not None:
            lines = [ctx.get_usage()]
            if ctx.command.get_help_option(ctx) is not None:
                names = ctx.command.get_help_option_names(ctx)
                lines.append(f"「{ctx.command_path} {min(names, key=len)}」查看帮助")
            click.echo("\n".join(lines), file=file, err=file is None, color=color)
        click.echo(f"错误：{self.format_message()}", file=file, err=file is None, color=color)


class Refused(click.ClickException):
    """A command's one-line refusal (a plain ``click.ClickException``) as the director reads
    it: 「错误：…」, never click's 「Error: …」."""

    def __init__(self, original: click.ClickException) -> None:
        super().__init__(original.message)
        self.exit_code = original.exit_code

    def show(self, file: Any = None) -> None:
        click.echo(f"错误：{self.format_message()}", file=file, err=file is None)


class Cancelled(click.ClickException):
    """A question answered with Ctrl-C or end of input: click's 「Aborted!」 in Chinese."""

    def show(self, file: Any = None) -> None:
        click.echo("已取消。", file=file, err=file is None)


# ------------------------------------------------------------------ the command classes

def _first_sentence(text: str) -> str:
    paragraph = text.split("\n\n", 1)[0]
    joined = _join_lines(paragraph.splitlines())
    m = re.match(r"(.+?)(?:。|(?<=[A-Za-z0-9)])\.\s|$)", joined)
    return (m.group(1) if m else joined).strip()


class ChineseHelp:
    """What makes a click command speak Chinese (mixed in before ``click.Command`` or
    ``click.Group``). Overrides: the context (its help formatter), the help option's
    text, the usage pieces, the 选项/参数 sections, the short help, and — in
    ``parse_args`` and ``invoke``, where click parses and runs — usage errors (and
    click's 「Aborted!」)."""

    context_class = ChineseContext

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.help = HELP_OPTION_HELP
        return option

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [_USAGE_PIECES.get(p, p) for p in super().collect_usage_pieces(ctx)]  # type: ignore[misc]

    def format_options(self, ctx: click.Context, formatter: HelpFormatter) -> None:
        rows = [r for p in self.get_params(ctx)  # type: ignore[attr-defined]
                if isinstance(p, click.Option) and (r := option_record(p, ctx)) is not None]
        if rows:
            with formatter.section("选项"):
                formatter.write_dl(rows)
        if isinstance(self, click.Group):
            self.format_commands(ctx, formatter)

    def format_arguments(self, ctx: click.Context, formatter: HelpFormatter) -> None:
        args = [p for p in self.get_params(ctx) if isinstance(p, click.Argument)]  # type: ignore[attr-defined]
        if any(getattr(a, "help", None) for a in args):
            with formatter.section("参数"):
                formatter.write_dl([(a.make_metavar(ctx), getattr(a, "help", None) or "") for a in args])

    def get_short_help_str(self, limit: int = 45) -> str:
        """The command's line in 命令: its first sentence (to 「。」), cut to the width."""
        if self.short_help:  # type: ignore[attr-defined]
            return inspect.cleandoc(self.short_help)  # type: ignore[attr-defined]
        text = inspect.cleandoc(self.help or "").partition("\f")[0]  # type: ignore[attr-defined]
        return shorten(_first_sentence(text), limit) if text else ""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)  # type: ignore[misc]
        except click.UsageError as exc:
            if exc.ctx is None:  # the parser's own errors (an option without its value) carry none
                exc.ctx = ctx
            raise _in_chinese(exc) from exc

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)  # type: ignore[misc]
        except click.UsageError as exc:
            raise _in_chinese(exc) from exc
        except click.Abort as exc:
            raise Cancelled("已取消。") from exc
        except click.ClickException as exc:
            if type(exc).show is click.ClickException.show:  # click's own 「Error: 」
                raise Refused(exc) from exc
            raise


def _in_chinese(exc: click.UsageError) -> click.UsageError:
    if isinstance(exc, (ChineseUsageError, click.exceptions.NoArgsIsHelpError)):
        return exc  # already Chinese; the help the group shows when given nothing
    return ChineseUsageError(exc)


class ChineseCommand(ChineseHelp, click.Command):
    pass


class ChineseGroup(ChineseHelp, click.Group):
    """The ``forumbot`` group: adopts every command added to it."""

    command_class = ChineseCommand

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(chinese(cmd), name)


ChineseGroup.group_class = ChineseGroup

_ADOPTED: dict[type, type] = {click.Command: ChineseCommand, click.Group: ChineseGroup}


def chinese(command: click.Command) -> click.Command:
    """Make a command (and a group's commands) speak Chinese: its class becomes a
    subclass of its own class with ``ChineseHelp`` mixed in (made once per class). The
    command object stays the same one the module defines; only the class changes, so
    a command built with ``@click.command`` anywhere is adopted when it is added."""
    if not isinstance(command, ChineseHelp):
        base = type(command)
        cls = _ADOPTED.get(base)
        if cls is None:
            cls = _ADOPTED[base] = type(f"Chinese{base.__name__}", (ChineseHelp, base), {"__module__": __name__})
        command.__class__ = cls
    for sub in getattr(command, "commands", {}).values():
        chinese(sub)
    return command
