"""A three-day 14人简易 game whose nights are played by the players' PMs to the bot
(``python -m forumbot.demo --nights``; the end-to-end tests' too).

Fourteen players, the rule set's own composition (狼人 ×4, 预言家, 女巫, 长老, 村民 ×7), the
identities in a 0600 file beside the config and told to each player by PM. The players
vote in the threads by day and send their actions to the bot by PM at night; the director
only approves the drafts and confirms the bot's resolution of each night.

* Day 1 elects 饺子 sheriff.
* Night 1: a villager tries 杀人 (no skill, told so); the wolves disagree at first (春卷
  orders Alice) and then all name 汤圆 — the pack's order is final at once, and the witch
  is told 通灵 then; the seer learns 包子 is 非村民阵营; the witch passes. 汤圆 is out.
* Day 2: 包子 is voted out.
* Night 2: the wolves kill the elder 馄饨 (marked, stays: 指杀第一次无效), 包子 — out — sends
  an order (not counted), the witch poisons 春卷 (out), 油条 never orders.
* Day 3: 月饼 is voted out.
"""

from __future__ import annotations

from forumbot.demo.scenario import DayPlan, GamePlan, _day_threads, at, night_pm, vote

PLAYERS14 = ("饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖", "春卷", "Carol", "油条", "麻花",
             "馄饨", "粽子")
WOLVES = ("包子", "月饼", "春卷", "油条")
SEER, WITCH, ELDER = "小笼包", "Carol", "馄饨"
SHEET14: dict[str, str] = {p: ("狼人" if p in WOLVES else "预言家" if p == SEER else "女巫" if p == WITCH
                               else "长老" if p == ELDER else "村民") for p in PLAYERS14}
DAYS14 = tuple(DayPlan(n, at(n, "09:00"), at(n, "21:30")) for n in (1, 2, 3))
# What the players are told back, and what the director confirms (the tests check them).
EXPECTED_OUT = {1: "饺子", 2: "包子", 3: "月饼"}  # day 1: the sheriff
NIGHT_OUTS = {1: ("汤圆",), 2: ("春卷",)}
NIGHT_MARKS = {2: ("馄饨",)}


def _votes(day: int, living: tuple[str, ...], target: str, against: str, dissent: tuple[str, ...]) -> list:
    out = []
    for k, who in enumerate(living):
        hhmm = f"{10 + k // 3:02d}:{(k % 3) * 20 + 5:02d}"
        pick = against if who in dissent or who == target else target
        if pick == who:
            pick = against
        out.append(vote(day, hhmm, who, pick, "看了一天发言"))
    return out


def _first_night(victim: str) -> list:
    """Night 1 of both scripts: a villager tries 杀人 (没有这个技能); the wolves disagree (春卷
    orders Alice), then all four name ``victim`` — final at once, the witch told 通灵 then;
    the seer checks 包子; the witch passes."""
    return [
        night_pm(1, "21:35", "麻花", "杀人 饺子"),
        night_pm(1, "21:40", "包子", f"杀人 {victim}"),
        night_pm(1, "21:45", "月饼", f"杀人 {victim}"),
        night_pm(1, "21:50", "春卷", "杀人 Alice"),
        night_pm(1, "21:52", SEER, "预言 包子"),
        night_pm(1, "22:00", "油条", f"杀人 {victim}"),
        night_pm(1, "22:10", "春卷", f"杀人 {victim}"),
        night_pm(1, "23:30", WITCH, "放弃"),
    ]


def nights_plan() -> GamePlan:
    a = []
    everyone = PLAYERS14
    a += _votes(1, everyone, "饺子", "包子", dissent=("包子", "春卷", "麻花"))
    a += _first_night("汤圆")
    living2 = tuple(p for p in everyone if p != "汤圆")
    a += _votes(2, living2, "包子", "Alice", dissent=("月饼", "春卷", "油条"))
    a += [
        night_pm(2, "21:40", "月饼", "杀人 馄饨"),
        night_pm(2, "21:45", "包子", "杀人 粽子"),  # out since the vote: 行动者已出局
        night_pm(2, "21:50", "春卷", "杀人 馄饨"),
        night_pm(2, "21:55", SEER, "预言 月饼"),
        night_pm(2, "22:30", WITCH, "毒药 春卷"),
    ]
    living3 = tuple(p for p in living2 if p not in ("包子", "春卷"))
    a += _votes(3, living3, "月饼", "饺子", dissent=("油条",))
    return GamePlan(PLAYERS14, DAYS14, _day_threads(3), sorted(a, key=lambda x: x.when), at(3, "22:30"),
                    expected_out=dict(EXPECTED_OUT), ruleset="simple14", identities=dict(SHEET14), tell_by_pm=True)


# ---------------------------------------------------------------------------------------
# The default demo (``python -m forumbot.demo``, ``make demo``): the project's config.toml —
# the same fourteen players and identities, a [calendar] without [[days]] (the bot opens
# every day's threads), nights by PM — played until a faction wins.

# The story, as the tests read it back.
VILLAGE_OUT = {1: "饺子", 2: "包子", 3: "Carol"}  # day 1: the sheriff elected; then voted out
VILLAGE_NIGHTS = {1: (), 2: ("小笼包", "春卷"), 3: ("馄饨",)}  # who each night puts out
VILLAGE_WORDS = {  # the first four out (as many as the wolves) may leave 遗言
    "包子": "遗言 我是好人，你们投错了。",
    "春卷": "遗言 [b]女巫毒错人了[/b]，我是好人！Carol 才可疑。",
    "Carol": "遗言 我是女巫，第二晚毒的是春卷。剩下的交给你们了。",
}
VILLAGE_END = at(4, "11:00")


def village_plan() -> GamePlan:
    """Four wolves (包子 月饼 春卷 油条) against the village; the wolves win in the third
    night when the last of 预言家, 女巫 and 长老 goes out (村民: 预言家、女巫和长老全部出局).

    * Day 1 elects 饺子 sheriff: a change that quotes its vote counts, one that does not is
      void, 烧卖 lurks, Alice asks for a count.
    * Night 1: a villager tries 杀人 (no skill, told so); the wolves disagree, then all name
      the elder 馄饨 — final at once, the witch told 通灵 — who is only marked (指杀第一次无效);
      the seer learns 包子 is 非村民阵营; the witch passes: 平安夜.
    * Day 2: 包子 is voted out (an edit after the bot saw the vote does not change it; a
      vote after the deadline is late); he leaves 遗言.
    * Night 2: 包子, out, orders a kill (not counted); the three wolves kill the seer, who
      checks 月饼 first; the witch poisons 春卷. 春卷's 遗言 blames the witch.
    * Day 3: the village votes out the witch Carol (her 遗言 says what she did).
    * Night 3: the two wolves kill 馄饨 again: out — the village has lost its 预言家, 女巫
      and 长老, the wolves win; the bot stops: no fourth day, the end post with the reveal.
    """
    from forumbot.demo.scenario import Action, change, chatter

    a: list = []
    everyone = PLAYERS14
    a += chatter(1, everyone, quiet=("烧卖",))
    a += _votes(1, tuple(p for p in everyone if p != "汤圆"), "饺子", "包子", dissent=("包子", "春卷", "麻花"))
    a += [
        vote(1, "09:40", "汤圆", "包子", "先随便投一个", key="tangyuan-vote"),
        change(1, "15:00", "汤圆", "饺子", "听了发言，改投饺子", quote="tangyuan-vote"),
        change(1, "16:00", "麻花", "饺子", "改一下", quote=None),  # no quote: void
        Action(at(1, "14:00"), "post", "vote1", "Alice", "计票，谢谢机器人"),
    ]
    a += _first_night("馄饨")
    a += chatter(2, everyone, quiet=("烧卖",), posts=10)
    a += _votes(2, tuple(p for p in everyone if p not in ("烧卖", "粽子")), "包子", "Alice",
                dissent=("月饼", "春卷", "油条"))
    a += [
        vote(2, "09:30", "烧卖", "包子", "跟警长", key="shaomai-vote"),
        Action(at(2, "10:30"), "edit", author="烧卖", key="shaomai-vote",
               message="投票对象：月饼\n投票理由：想了想还是月饼"),
        vote(2, "21:32", "粽子", "月饼", "来晚了"),  # after the deadline: late
        night_pm(2, "22:00", "包子", VILLAGE_WORDS["包子"]),
        night_pm(2, "21:40", "月饼", "杀人 小笼包"),
        night_pm(2, "21:45", "包子", "杀人 粽子"),  # out since the vote: 行动者已出局
        night_pm(2, "21:50", "春卷", "杀人 小笼包"),
        night_pm(2, "21:52", SEER, "预言 月饼"),
        night_pm(2, "22:05", "油条", "杀人 小笼包"),
        night_pm(2, "22:30", WITCH, "毒药 春卷"),
        night_pm(2, "08:40", "春卷", VILLAGE_WORDS["春卷"], next_day=True),
    ]
    living3 = tuple(p for p in everyone if p not in ("包子", SEER, "春卷"))
    a += chatter(3, living3)
    a += _votes(3, living3, WITCH, "月饼", dissent=(WITCH, "粽子"))
    a += [
        night_pm(3, "22:00", WITCH, VILLAGE_WORDS["Carol"]),
        night_pm(3, "21:40", "月饼", "杀人 馄饨"),
        night_pm(3, "21:50", "油条", "杀人 馄饨"),
    ]
    # The bot opens four days' threads at most: the game is over before the fourth.
    return GamePlan(PLAYERS14, tuple(DayPlan(n, at(n, "09:00"), at(n, "21:30")) for n in (1, 2, 3, 4)),
                    _day_threads(4), sorted(a, key=lambda x: x.when), VILLAGE_END,
                    watched=((at(2, "09:30"), at(2, "10:30")),),
                    expected_out=dict(VILLAGE_OUT), ruleset="simple14", identities=dict(SHEET14), tell_by_pm=True)
