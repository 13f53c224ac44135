"""Post text → vote declaration (SPEC §3.1): a table of real-looking posts, then the
captured threads (tid 2 of discuz-x3 and the 2,001-post thread of discuz-x3-large)."""

from __future__ import annotations

import csv
import json
import unicodedata
from pathlib import Path

import lxml.html
import pytest

from parsers.models import DeclarationProblem, VoteKind
from parsers.votes import parse_vote

V, C = VoteKind.VOTE, VoteKind.CHANGE
NO_TARGET = DeclarationProblem.NO_TARGET
TWO_TARGETS = DeclarationProblem.TWO_TARGETS
MIXED = DeclarationProblem.MIXED_KINDS
NO_REASON = DeclarationProblem.NO_REASON
BAD = DeclarationProblem.BAD_FORMAT

# The quote block the Discuz X3 reply form writes (DISCUZ.md §1.3), around an old vote.
QUOTE_OF_VOTE_5 = (
    "[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid=5&ptid=2]"
    "[color=#999999]汤圆 发表于 2026-11-30 00:24[/color][/url][/size]\n"
    "投票对象：弃权\n投票理由：搞不清楚[/quote]\n\n"
)


def case(id: str, text: str, expected: tuple | None) -> object:
    return pytest.param(text, expected, id=id)


# (kind, target, reason, problem) or None for "not a declaration".
TABLE = [
    # --- discuz-x3 tid 2, every post as its own text reads on the pages -----------------
    case(
        "tid2-pid2-director-rules-template",
        "【饺子村】第一日 投票帖\n\n投票格式（请严格遵守，使用全角冒号）：\n投票对象：玩家名\n"
        "投票理由：理由\n\n如需改票，请引用自己原来的投票帖，并写：\n改票对象：玩家名\n"
        "改票理由：理由\n\n弃权请写“投票对象：弃权”。投票截止后的投票无效。",
        (C, "玩家名", "理由", None),
    ),
    case("tid2-pid3-vote", "投票对象：包子\n投票理由：包子昨晚发言很可疑",
         (V, "包子", "包子昨晚发言很可疑", None)),
    case("tid2-pid4-vote", "投票对象：饺子\n投票理由：饺子好吃", (V, "饺子", "饺子好吃", None)),
    case("tid2-pid5-abstain", "投票对象：弃权\n投票理由：搞不清楚", (V, "弃权", "搞不清楚", None)),
    case("tid2-pid6-half-width-colons", "投票对象:饺子\n投票理由:跟包子一票",
         (V, "饺子", "跟包子一票", None)),
    case("tid2-pid7-chat", "大家别急着投票啊，先去讨论帖看看昨晚的发言再决定吧。", None),
    case(
        "tid2-pid8-edited-with-correction-note",
        "投票对象：小笼包\n投票理由：小笼包一整天都不说话\n（更正：上面打错字了，是小笼包）",
        (V, "小笼包", "小笼包一整天都不说话", None),
    ),
    case(
        "tid2-pid8-raw-bbcode-with-edit-stamp",
        "[i=s] 本帖最后由 月饼 于 2026-11-30 00:26 编辑 [/i]\n\n投票对象：小笼包\n"
        "投票理由：小笼包一整天都不说话\n（更正：上面打错字了，是小笼包）",
        (V, "小笼包", "小笼包一整天都不说话", None),
    ),
    case("tid2-pid9-red-size6-bbcode",
         "[color=Red][size=6]投票对象：月饼[/size][/color]\n投票理由：月饼踩我，我反踩！",
         (V, "月饼", "月饼踩我，我反踩！", None)),
    case(
        "tid2-pid10-chat-link-image",
        "昨天的发言我整理好了，见讨论帖：【饺子村】第一日 讨论帖\n\n还没想好投谁，晚点再投。"
        "（补充：链接已更新）",
        None,
    ),
    case("tid2-pid11-change-own-text", "改票对象：包子\n改票理由：包子也好吃",
         (C, "包子", "包子也好吃", None)),
    case("tid2-pid11-change-raw-bbcode-quote",
         QUOTE_OF_VOTE_5 + "改票对象：包子\n改票理由：包子也好吃",
         (C, "包子", "包子也好吃", None)),
    case(
        "tid2-pid12-bot-tally",
        "【计票机器人】当前票型（截至 10 楼）\n包子：2 票（饺子、汤圆）\n饺子：2 票（包子、Alice）\n"
        "月饼：1 票（小笼包）\n无效票：月饼 → 小龙包（查无此人）\n未投票：bob_2、烧卖",
        None,
    ),
    case("tid2-pid13-malformed-original", "投票: 饺子 我觉得饺子是狼，理由不多说了",
         (V, None, None, BAD)),
    case("tid2-pid14-vote", "投票对象：饺子\n投票理由：随大流", (V, "饺子", "随大流", None)),
    case("tid2-pid15-change", "改票对象：汤圆\n改票理由：汤圆改票太快了，可疑",
         (C, "汤圆", "汤圆改票太快了，可疑", None)),
    case("tid2-pid16-fastpost-vote", "投票对象：小笼包\n投票理由：大字报太吓人了",
         (V, "小笼包", "大字报太吓人了", None)),
    case("tid2-pid18-deleted-chat", "同意楼上，先出饺子，大家跟我投。", None),
    case("tid2-pid19-change", "改票对象：月饼\n改票理由：月饼发言前后矛盾，先投月饼",
         (C, "月饼", "月饼发言前后矛盾，先投月饼", None)),
    case("tid2-pid20-director-reminder",
         "【导演提醒】距离第一日投票截止还有 30 分钟，还没投票的玩家请尽快投票。", None),
    case("tid2-pid21-chat", "我是好人！！我昨晚什么都没干，月饼别踩我了。", None),
    case("tid2-pid22-plus-one-chat", "+1 相信小笼包，感觉月饼更可疑一点", None),
    case(
        "tid2-pid23-bot-tally-format-error",
        "【计票机器人】当前票型（截至 21 楼）\n包子：1 票（汤圆）\n饺子：2 票（包子、bob_2）\n"
        "汤圆：1 票（饺子）\n月饼：2 票（小笼包、Alice）\n小笼包：2 票（月饼、烧卖）\n"
        "格式错误：路人甲（12 楼）",
        None,
    ),
    case("tid2-pid24-change", "改票对象：饺子\n改票理由：看了预言家的发言，还是投饺子",
         (C, "饺子", "看了预言家的发言，还是投饺子", None)),
    case("tid2-pid25-change-half-width", "改票对象:Alice\n改票理由:Alice 一直在换票，不像好人",
         (C, "Alice", "Alice 一直在换票，不像好人", None)),
    case("tid2-pid26-chat", "我不是狼！！包子是悍跳的，大家看清楚。", None),
    case("tid2-pid27-deadline-bracket-prefix",
         "【投票截止】第一日投票已截止，本楼以后的投票与改票一律无效。", None),
    case("tid2-pid28-late-vote", "投票对象：包子\n投票理由：不好意思来晚了",
         (V, "包子", "不好意思来晚了", None)),
    case(
        "tid2-pid29-final-tally",
        "【计票机器人】第一日最终票型（以 26 楼截止为准）\n饺子：2 票（包子、月饼）\n"
        "无效：烧卖 27 楼（截止后投票）；路人甲 12 楼（格式错误）\n结果：饺子、月饼 平票",
        None,
    ),
    case("tid2-pid30-result", "【第一日结果】饺子与月饼平票，明日进入 PK 环节。本帖到此结束，稍后锁帖。",
         None),
    # --- discuz-x3-large quirks ----------------------------------------------------------
    case("large-pid1182-half-width-B", "改票对象：阿B\n改票理由：票型太可疑了",
         (C, "阿B", "票型太可疑了", None)),
    case("large-pid1781-change-line-in-b",
         "[b]改票对象：糖醋排骨[/b]\n改票理由：昨晚的死亡信息对他有利",
         (C, "糖醋排骨", "昨晚的死亡信息对他有利", None)),
    case(
        "large-pid1501-edited-supplement",
        "投票对象：狼王不吃素\n投票理由：发言前后矛盾\n\n补充：今天先别投我啊，我真的是好人，对天发誓。",
        (V, "狼王不吃素", "发言前后矛盾", None),
    ),
    case(
        "large-pid1511-raw-stamp-then-quote",
        "[i=s] 本帖最后由 小白兔 于 2026-11-30 00:59 编辑 [/i]\n"
        "[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid=1401&ptid=13]"
        "[color=#999999]小白兔 发表于 2026-11-28 21:54[/color][/url][/size]\n"
        "投票对象：kiki\n投票理由：想拿个身份信息[/quote]\n改票对象：狼王不吃素\n"
        "改票理由：发言前后矛盾\n\n补充：我建议大家把怀疑对象都列出来，然后一起讨论。",
        (C, "狼王不吃素", "发言前后矛盾", None),
    ),
    case(
        "large-pid1042-director-template",
        "【导演】第三日投票现在开始！请存活玩家在本帖按格式投票：\n投票对象：XXX\n投票理由：XXX\n"
        "改票请引用自己之前的投票帖，写 改票对象 / 改票理由。",
        (V, "XXX", "XXX", None),
    ),
    case(
        "large-pid142-inline-template-is-not-a-key-line",
        "1. 讨论期间可以随时投票，格式：投票对象：XXX / 投票理由：XXX（分两行写）。\n"
        "2. 改票请引用自己之前的投票帖，并写 改票对象：XXX / 改票理由：XXX。",
        None,
    ),
    case("full-width-letter-target", "投票对象：阿Ｂ\n投票理由：跳得太早", (V, "阿B", "跳得太早", None)),
    case("full-width-digit-target", "投票对象：老７\n投票理由：划水", (V, "老7", "划水", None)),
    # --- the messy ones from the issue ---------------------------------------------------
    case("traditional-key-empty-target", "投票對象：", (V, None, None, NO_TARGET)),
    case("traditional-keys", "投票對象：饺子\n投票理由：餃子好吃", (V, "饺子", "餃子好吃", None)),
    case("traditional-change", "改票對象：包子\n改票理由：包子也好吃", (C, "包子", "包子也好吃", None)),
    case("half-width-colon", "投票对象:饺子\n投票理由:好吃", (V, "饺子", "好吃", None)),
    case("bold-target-after-space", "投票对象： [b]饺子[/b]\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("zero-width-in-target", "投票对象：饺\u200b子\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("zero-width-in-key", "投票\u200b对象：饺子\n投票理由\ufeff：好吃", (V, "饺子", "好吃", None)),
    case("invisible-soup", "\u2060投\u200c票\u200d对象\u00ad：\u200e饺子\u200f\u180e\n投票理由：好吃",
         (V, "饺子", "好吃", None)),
    case("vote-inside-quote-only", "[quote]投票对象：饺子\n投票理由：好吃[/quote]\n同意楼上", None),
    case("vote-inside-nested-quote",
         "[quote]前面[quote]投票对象：饺子[/quote]\n投票理由：好吃[/quote]\n+1", None),
    case("change-without-quote-is-still-a-change", "改票对象：包子\n改票理由：想了想还是包子",
         (C, "包子", "想了想还是包子", None)),
    case("two-target-lines", "投票对象：饺子\n投票对象：包子\n投票理由：都可疑",
         (V, None, "都可疑", TWO_TARGETS)),
    case("same-target-twice", "投票对象：饺子\n投票理由：好吃\n投票对象：饺子。",
         (V, "饺子", "好吃", None)),
    case("same-target-twice-case-and-width", "投票对象：alice\n投票对象：ＡＬＩＣＥ\n投票理由：x",
         (V, "alice", "x", None)),
    case("mixed-kinds-hand-copied-old-vote",
         "投票对象：饺子\n投票理由：好吃\n改票对象：包子\n改票理由：包子更可疑",
         (C, None, "包子更可疑", MIXED)),
    case("mixed-kinds-same-target-is-a-change", "投票对象：饺子\n改票对象：饺子\n改票理由：坚持",
         (C, "饺子", "坚持", None)),
    # --- reasons ------------------------------------------------------------------------
    case("no-reason-line", "投票对象：饺子", (V, "饺子", None, NO_REASON)),
    case("empty-reason-line", "投票对象：饺子\n投票理由：", (V, "饺子", None, NO_REASON)),
    case("punctuation-only-reason", "投票对象：饺子\n投票理由：。。。", (V, "饺子", None, NO_REASON)),
    case("reason-on-following-lines",
         "投票对象：饺子\n投票理由：\n他昨天一直划水\n发言也很少\n\n另外我是好人",
         (V, "饺子", "他昨天一直划水\n发言也很少", None)),
    case("reason-stops-at-next-key-line", "投票理由：\n投票对象：饺子", (V, "饺子", None, NO_REASON)),
    case("bare-reason-key", "投票对象：饺子\n理由：好吃", (V, "饺子", "好吃", None)),
    case("change-prefers-change-reason", "改票对象：包子\n投票理由：旧的\n改票理由：新的",
         (C, "包子", "新的", None)),
    case("reason-on-same-line-with-key", "投票对象：饺子 投票理由：好吃", (V, "饺子", "好吃", None)),
    case("bare-reason-on-same-line", "投票对象：饺子，理由：好吃", (V, "饺子", "好吃", None)),
    case("reason-on-same-line-without-key-stays", "投票对象：饺子 他是狼",
         (V, "饺子 他是狼", None, NO_REASON)),
    # --- separators, spaces, brackets -------------------------------------------------------
    case("spaces-around-colon", "投票对象 ： 饺子 \n投票理由 ： 好吃 ", (V, "饺子", "好吃", None)),
    case("ideographic-spaces", "投票对象：\u3000饺子\u3000\n投票理由：\u3000好吃", (V, "饺子", "好吃", None)),
    case("small-colon-fe55", "投票对象﹕饺子\n投票理由﹕好吃", (V, "饺子", "好吃", None)),
    case("vertical-colon-fe30", "投票对象︰饺子\n投票理由︰好吃", (V, "饺子", "好吃", None)),
    case("space-instead-of-colon", "投票对象 饺子\n投票理由 好吃", (V, "饺子", "好吃", None)),
    case("spaces-inside-key", "投 票 对 象：饺子\n投 票 理 由：好吃", (V, "饺子", "好吃", None)),
    case("typo-dui-xiang", "投票对像：饺子\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("bracketed-key", "【投票对象】：饺子\n【投票理由】：好吃", (V, "饺子", "好吃", None)),
    case("bulleted-key", "· 投票对象：饺子\n· 投票理由：好吃", (V, "饺子", "好吃", None)),
    case("crlf-lines", "投票对象：饺子\r\n投票理由：好吃\r\n", (V, "饺子", "好吃", None)),
    # --- targets ------------------------------------------------------------------------
    case("trailing-full-stop", "投票对象：饺子。\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("trailing-exclamations", "投票对象：饺子！！！\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("trailing-tilde", "投票对象：饺子～\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("target-in-lenticular-brackets", "投票对象：【饺子】\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("target-in-angle-brackets", "投票对象：<饺子>\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("brackets-inside-name-kept", "投票对象：饺子(3号)\n投票理由：好吃",
         (V, "饺子(3号)", "好吃", None)),
    case("inner-dot-kept", "投票对象：Mr.K\n投票理由：好吃", (V, "Mr.K", "好吃", None)),
    case("case-kept", "投票对象：BOB_2\n投票理由：好吃", (V, "BOB_2", "好吃", None)),
    case("full-width-name-nfkc", "投票对象：ｂｏｂ＿２\n投票理由：好吃", (V, "bob_2", "好吃", None)),
    case("abstain-traditional", "投票对象：棄權\n投票理由：搞不清楚", (V, "弃权", "搞不清楚", None)),
    case("abstain-with-full-stop", "投票对象：弃权。\n投票理由：搞不清楚", (V, "弃权", "搞不清楚", None)),
    case("abstain-as-change", "改票对象：弃权\n改票理由：还是弃权吧", (C, "弃权", "还是弃权吧", None)),
    case("punctuation-only-target", "投票对象：？？？\n投票理由：好吃", (V, None, "好吃", NO_TARGET)),
    case("markup-only-target", "投票对象：[b][/b]\n投票理由：好吃", (V, None, "好吃", NO_TARGET)),
    case("empty-target-line-then-named", "投票对象：\n投票对象：饺子\n投票理由：好吃",
         (V, "饺子", "好吃", None)),
    case("name-on-next-line-is-not-taken", "投票对象：\n饺子\n投票理由：好吃",
         (V, None, "好吃", NO_TARGET)),
    # --- markup -------------------------------------------------------------------------
    case("key-in-bold-colon-outside", "[b]投票对象[/b]：饺子\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("nested-colour-bold", "投票对象：[color=#ff0000][b]饺子[/b][/color]\n投票理由：好吃",
         (V, "饺子", "好吃", None)),
    case("font-and-size-around-line", "[font=微软雅黑][size=4]投票对象：包子[/size][/font]\n投票理由：好吃",
         (V, "包子", "好吃", None)),
    case("url-keeps-its-text", "投票对象：[url=home.php?mod=space&uid=4]饺子[/url]\n投票理由：好吃",
         (V, "饺子", "好吃", None)),
    case("image-after-target", "投票对象：饺子[img]http://127.0.0.1/a.png[/img]\n投票理由：好吃",
         (V, "饺子", "好吃", None)),
    case("smiley-code-after-target", "投票对象：饺子{:4_110:}\n投票理由：好吃", (V, "饺子", "好吃", None)),
    case("zero-width-inside-bbcode-target", "投票对象：[color=Blue]阿\u200dＢ[/color]\n投票理由：好吃",
         (V, "阿B", "好吃", None)),
    case("html-styling", '<b>投票对象：<font color="red">饺子</font></b><br />投票理由：好吃',
         (V, "饺子", "好吃", None)),
    case("html-nbsp-entity", "投票对象：&nbsp;饺子<br />投票理由：好吃", (V, "饺子", "好吃", None)),
    case(
        "html-quote-div-only",
        '<div class="quote"><blockquote><font size="2"><a href="x"><font color="#999999">'
        "饺子 发表于 2026-11-30 00:24</font></a></font><br />投票对象：饺子</blockquote></div>"
        "<br />我同意",
        None,
    ),
    case(
        "api-reply-wrap-change",
        '<div class="reply_wrap"><a href="x"><font color="#999999">饺子 发表于 2026-11-30 00:24'
        "</font></a><br />\n投票对象：包子<br />\r\n投票理由：可疑</div><br />\n"
        "改票对象：汤圆<br />\r\n改票理由：汤圆改票太快了，可疑",
        (C, "汤圆", "汤圆改票太快了，可疑", None),
    ),
    case("fake-quote-header-typed-by-hand",
         "饺子 发表于 2026-11-30 00:24\n投票对象：包子\n投票理由：x\n\n改票对象：汤圆\n改票理由：y",
         (C, None, "y", MIXED)),
    case("unclosed-quote-is-literal-text", "[quote]投票对象：饺子\n投票理由：好吃",
         (V, "饺子", "好吃", None)),
    # --- bad format and chat ------------------------------------------------------------------
    case("bad-format-vote-colon", "投票：饺子\n理由：他是狼", (V, None, "他是狼", BAD)),
    case("bad-format-change-colon", "改票: 包子", (C, None, None, BAD)),
    case("bad-format-reason-without-target", "投票理由：饺子好吃", (V, None, "饺子好吃", BAD)),
    case("chat-vote-for", "投票给饺子", None),
    case("chat-i-vote", "我投饺子一票吧", None),
    case("chat-vote-seriously", "大家投票要认真", None),
    case("chat-key-glued-to-text", "投票对象是谁还没想好", None),
    case("chat-reason-word-mid-line", "今天的投票理由都很水", None),
    case("chat-bare-reason-line", "理由：我懒得解释", None),
    case("chat-empty", "", None),
    case("chat-whitespace", " \n\u3000\n", None),
]


@pytest.mark.parametrize(("text", "expected"), TABLE)
def test_votes__table(text: str, expected: tuple | None) -> None:
    declaration = parse_vote(text)
    if expected is None:
        assert declaration is None
        return
    assert declaration is not None
    assert (declaration.kind, declaration.target, declaration.reason, declaration.problem) == expected


def test_votes__table_is_big_enough() -> None:
    assert len(TABLE) >= 60


def test_votes__two_targets_lists_both_in_writing_order() -> None:
    d = parse_vote("投票对象：饺子\n投票对象：包子\n投票理由：都可疑")
    assert d is not None
    assert d.targets_seen == ("饺子", "包子")
    assert d.line == "投票对象：饺子\n投票对象：包子"


def test_votes__mixed_kinds_lists_every_target() -> None:
    d = parse_vote("投票对象：饺子\n改票对象：包子\n改票理由：b")
    assert d is not None
    assert d.targets_seen == ("饺子", "包子")


def test_votes__line_is_the_target_line_without_markup() -> None:
    d = parse_vote("[color=Red][size=6]投票对象：月饼[/size][/color]\n投票理由：x")
    assert d is not None
    assert d.line == "投票对象：月饼"
    assert d.targets_seen == ("月饼",)


def test_votes__abstain_property() -> None:
    d = parse_vote("投票对象：棄權\n投票理由：搞不清楚")
    assert d is not None and d.abstain


def test_votes__bad_format_names_the_line() -> None:
    d = parse_vote("大家好\n投票: 饺子 我觉得饺子是狼，理由不多说了")
    assert d is not None
    assert d.line == "投票: 饺子 我觉得饺子是狼，理由不多说了"
    assert d.targets_seen == ()


def test_votes__long_hostile_lines_are_read() -> None:
    # 50,000-character lines: quadratic regex backtracking would take minutes here
    d = parse_vote("投票对象" + " " * 50_000 + "x")
    assert d is not None and d.target == "x"
    assert parse_vote(" " * 50_000 + "：") is None
    assert parse_vote("[quote]" * 5_000 + "投票对象：饺子") is not None  # all unmatched: literal
    assert parse_vote("[quote]" * 5_000 + "投票对象：饺子" + "[/quote]" * 5_000) is None


# --- captured pages ---------------------------------------------------------------------------


def _message_cells(path: Path) -> list[lxml.html.HtmlElement]:
    doc = lxml.html.fromstring(path.read_bytes())
    return doc.xpath('//td[starts-with(@id, "postmessage_")]')


def _pid(td: lxml.html.HtmlElement) -> int:
    return int(td.get("id").removeprefix("postmessage_"))


def _own_text(td: lxml.html.HtmlElement) -> str:
    """The post's own text, the simple way: quotes and the edit stamp dropped, <br> → \\n."""
    td = lxml.html.fromstring(lxml.html.tostring(td))  # work on a copy
    for el in td.xpath('.//div[contains(concat(" ", normalize-space(@class), " "), " quote ")]'
                       ' | .//i[contains(@class, "pstatus")]'):
        el.drop_tree()
    for br in td.iter("br"):
        br.tail = "\n" + (br.tail or "")
    return td.text_content()


# MANIFEST "Ground truth: tid 2 voting thread": pid → (kind, target); vote-late is a vote.
# The director's rules post (pid 2) is left out: the engine ignores directors.
TID2_TRUTH: dict[int, tuple[VoteKind, str] | None] = {
    3: (V, "包子"), 4: (V, "饺子"), 5: (V, "弃权"), 6: (V, "饺子"), 7: None, 8: (V, "小笼包"),
    9: (V, "月饼"), 10: None, 11: (C, "包子"), 12: None, 14: (V, "饺子"), 15: (C, "汤圆"),
    16: (V, "小笼包"), 19: (C, "月饼"), 20: None, 21: None, 22: None, 23: None,
    24: (C, "饺子"), 25: (C, "Alice"), 26: None, 27: None, 28: (V, "包子"), 29: None, 30: None,
}  # fmt: skip


@pytest.mark.fixtures
def test_votes__tid2_pages_match_manifest(x3_dir: Path) -> None:
    seen: dict[int, tuple[VoteKind, str] | None] = {}
    for n in (1, 2, 3):
        for td in _message_cells(x3_dir / f"viewthread-tid2-page{n}.html"):
            pid = _pid(td)
            if pid not in TID2_TRUTH:
                continue
            # both the simple own text and the raw cell HTML (quotes left in) must agree
            for text in (_own_text(td), lxml.html.tostring(td, encoding="unicode")):
                d = parse_vote(text)
                got = None if d is None else (d.kind, d.target)
                assert got == TID2_TRUTH[pid], f"pid {pid}: {text!r}"
                assert d is None or d.problem is None, f"pid {pid}: {d}"
            seen[pid] = got
    assert seen == TID2_TRUTH


@pytest.fixture(scope="module")
def large_posts(large_dir: Path) -> dict[int, dict[str, str]]:
    """pid → {"own": simple own text, "html": raw cell HTML, "api": API message, truth…}."""
    with (large_dir / "truth.csv").open(encoding="utf-8", newline="") as f:
        posts: dict[int, dict[str, str]] = {int(r["pid"]): dict(r) for r in csv.DictReader(f)}
    for page in sorted(large_dir.glob("viewthread-page*.html")):
        for td in _message_cells(page):
            post = posts[_pid(td)]
            post["own"] = _own_text(td)
            post["html"] = lxml.html.tostring(td, encoding="unicode")
    for page in sorted(large_dir.glob("mobileapi-page*.json")):
        for p in json.loads(page.read_bytes())["Variables"]["postlist"]:
            posts[int(p["pid"])]["api"] = p["message"]
    return posts


@pytest.mark.fixtures
@pytest.mark.parametrize("source", ["own", "html", "api"])
def test_votes__large_thread_matches_truth(
    large_posts: dict[int, dict[str, str]], source: str
) -> None:
    assert len(large_posts) == 2001
    wrong = []
    votes = 0
    for pid, post in large_posts.items():
        if post["author"] == "导演":
            continue  # rule posts carry template lines; the engine ignores directors
        d = parse_vote(post[source])
        if post["is_vote_or_change"]:
            votes += 1
            want = (post["is_vote_or_change"], unicodedata.normalize("NFKC", post["target_written"]))
            got = None if d is None else (d.kind.value, d.target)
            if got != want or d.problem is not None:
                wrong.append((pid, want, d))
        elif d is not None:
            wrong.append((pid, None, d))
    assert votes == 24 + 55
    assert wrong == []


@pytest.mark.fixtures
def test_votes__large_thread_quirks(large_posts: dict[int, dict[str, str]]) -> None:
    d1182 = parse_vote(large_posts[1182]["html"])
    assert d1182 is not None and (d1182.kind, d1182.target) == (C, "阿B")
    d1781 = parse_vote(large_posts[1781]["html"])
    assert d1781 is not None and (d1781.kind, d1781.target) == (C, "糖醋排骨")
    assert d1781.reason == "昨晚的死亡信息对他有利"
