"""``make demo``: a whole 14人简易 game, played on the simulator, run by the agent.

The simulator serves a Discuz-compatible forum on 127.0.0.1; the game is the project's
config.toml — fourteen players, the rule set's composition, days on a [calendar] — with the
script of ``forumbot.demo.nights.village_plan``: the bot opens each day's threads, the
players vote (a change that quotes its vote, one that does not, a late vote, an edit after
the bot saw the vote, a lurker, a 计票 request) and play the nights by PM to the bot, which
answers each action, tells the seer and the witch what they learn, resolves each night and
asks the 遗言; the demo director approves each manual draft and confirms each night after
printing it. The wolves win in the third night: the bot announces it, posts the end post
with the sealed deal's reveal and opens no fourth day. At the end it prints what the bot
posted and the URL where the threads can be read in a browser.

``--director-by-pm``: the director acts by forum private message only — the bot tells
them by PM what waits, and a scripted director on the forum reads those PMs and answers
(批准, once 查看 first, once 驳回 and then the redraft approved, each night 确认 with the code
the bot gave). ``--desk``: you are the director, on the desk. ``--nights``: a three-day
14人简易 game on threads the director made ([[days]]), the director by PM.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

from forumbot.game import director, nightrun
from forumbot.agent.loop import Agent, TickReport
from forumbot.notify import Notifier
from forumbot.agent.instance import InstanceLock
from forumbot.store.nights import NightProposal
from forumbot.store.outbox import Draft, DraftKind, DraftState
from forumbot.game.runtime import Runtime, make_client, open_runtime
from forumbot.demo.nights import village_plan
from forumbot.demo.scenario import (BOT, DIRECTOR, END, GAME_START, PASSWORD, Action, Driver, GamePlan, World,
                                    bot_opens_threads, build_world, config_from, write_config)
from forumbot.simulator import SimClock, Simulator
from forumbot.wording import FLAG_ZH, PROPOSAL_ZH, card_zh, draft_kind_zh


@dataclass
class Game:
    """A scripted game wired up: simulator, world, config, runtime, agent, driver."""

    sim: Simulator
    world: World
    clock: SimClock
    rt: Runtime
    agent: Agent
    driver: Driver
    approved: list[Draft] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # what the agent's passes reported
    lock: InstanceLock | None = None  # held while the desk shows the agent's health (--desk)
    until: datetime = END  # when the script is over (play's default end)

    def close(self) -> None:
        if self.lock is not None:
            self.lock.release()
        self.rt.close()


EXAMPLE_CONFIG = Path(__file__).resolve().parents[2] / "config.toml"


def setup_game(workdir: Path, *, clock: SimClock | None = None, sim: Simulator | None = None,
               config_source: Path | None = None, notify: dict[str, object] | None = None,
               plan: GamePlan | None = None, **agent_settings: object) -> Game:
    """The scripted game on a fresh simulator. The config is ``config_source`` (the
    project's config.toml describes this game) pointed at the simulator, or one written
    from the scenario. PMs to the director are off unless ``notify`` (``[notify]`` keys)
    turns them on."""
    clock = clock or SimClock(start=GAME_START - timedelta(minutes=20))
    sim = sim or Simulator(clock=clock)
    # The project's config.toml is the fourteen players of forumbot.demo.nights.village_plan:
    # its script is played on it, the identities dealt as the script needs.
    from_config = config_source is not None
    if from_config and plan is None:
        plan = village_plan()
    # A config from [calendar] without [[days]] (the project's config.toml): the director
    # creates no thread, the bot opens each day's (SPEC §11) and the players post in those.
    bot_opens = from_config and bot_opens_threads(config_source)
    world = build_world(sim, plan, bot_opens=bot_opens)
    base_url = sim.start()
    if from_config:
        if bot_opens and notify is not None and notify.get("enabled"):
            # The director posts in no thread of such a game: the bot cannot learn their uid
            # from the posts, so the config names it (README: [notify].director_uid).
            notify = {**notify, "director_uid": sim.data.user(DIRECTOR).uid}
        config = config_from(config_source, workdir / "game.toml", base_url, workdir / "game.sqlite",
                             notify=notify, fid=world.fid, plan=plan, **agent_settings)
    elif plan is not None:  # a scripted game with its own config (``--nights``: [[days]], nights by PM)
        config = write_config(workdir / "game.toml", world, base_url, workdir / "game.sqlite", plan=plan,
                              notify=notify, **agent_settings)
    else:
        config = write_config(workdir / "game.toml", world, base_url, workdir / "game.sqlite", notify=notify,
                              **agent_settings)
    rt = open_runtime(config, clock=clock)
    if bot_opens:
        world.resolve = lambda key: _opened_tid(rt, key)
    client = make_client(rt)
    agent = Agent(rt, client, notifier=Notifier.for_agent)
    driver = Driver(world, actions=list(plan.actions)) if plan is not None else Driver(world)
    driver.on_night = lambda action: director.record_night(rt, action.day, list(action.out), clock.now())
    return Game(sim, world, clock, rt, agent, driver, until=plan.end if plan is not None else END)


def _opened_tid(rt: Runtime, key: str) -> int | None:
    """The tid of the thread the bot opened for a scenario key ("vote2", "talk2")."""
    role = {"vote": "vote_thread", "talk": "discussion_thread"}.get(key[:4])
    if role is None or not key[4:].isdigit():
        return None
    number = int(key[4:])
    day = next((d for d in rt.config.days if d.number == number), None)
    return getattr(day, role) if day is not None else None


def play(game: Game, *, until: datetime | None = None, step: timedelta = timedelta(minutes=10),
         approve: bool = True, on_tick: Callable[[TickReport], None] | None = None,
         on_approve: Callable[[Draft], None] | None = None,
         on_confirm: Callable[[NightProposal], None] | None = None, confirm_nights: bool = False,
         wait_for_director: Callable[[], bool] | None = None) -> None:
    """Advance the game clock ``step`` per pass: players post what is due, the agent
    ticks, the director approves what waits (printing it first via ``on_approve``).

    With ``wait_for_director`` the game clock stands still while it returns True (a
    person deciding on the desk) instead of the demo director approving. With
    ``confirm_nights`` the director also confirms each night the bot proposes as it stands
    (``on_confirm`` sees it first).
    ``until``: the game's own end by default."""
    until = until or game.until
    game.agent.start()
    while game.clock.now() < until:
        game.driver.apply_due(game.clock.now())
        report = game.agent.tick()
        while wait_for_director is not None and wait_for_director():
            time.sleep(0.5)
            # Publish what the director approved meanwhile, but do not poll: each request
            # is spaced on the game clock (the client's throttle), which must stand still.
            waited = TickReport(at=game.clock.now())
            game.agent.publish(game.clock.now(), waited)
            report.published += waited.published
        game.errors += report.errors
        if on_tick:
            on_tick(report)
        if approve:
            for draft in director.waiting(game.rt):
                if on_approve:
                    on_approve(draft)
                game.approved.append(director.approve(game.rt, draft.id, game.clock.now()))
            for proposal in waiting_nights(game) if confirm_nights else ():
                if on_confirm:
                    on_confirm(proposal)
                nightrun.confirm(game.rt, proposal.night, game.clock.now(), actor="director",
                                 version=proposal.version)
        game.clock.advance(seconds=step.total_seconds())
    game.agent.tick()  # publish what the last approvals released


def waiting_nights(game: Game) -> list[NightProposal]:
    """The bot's resolutions of nights that wait for the director's confirmation."""
    return [p for p in game.rt.store.night_proposals() if p.state == "proposed"]


# The commands the bot's PMs offer, as the scripted director reads them.
_OFFER = re.compile(r"「批准 ([A-Za-z0-9]{4})」发出")
_CONFIRM = re.compile(r"「确认 ([A-Za-z0-9]{4})」")


@dataclass
class PmDirector:
    """The demo's director when it acts by forum PM only (``--director-by-pm``): a forum
    user who reads what the bot sends and answers — every waiting draft approved (the
    first final count looked at with 查看 first, the first announcement rejected with a
    reason and its redraft approved), the scripted nights entered with 夜晚 / 平安夜 and
    confirmed with the code the bot answers with. Several answers go in one message."""

    game: Game
    out: object | None = None  # where to narrate (None: quiet)
    seen: int = 0  # the newest pmid read
    viewing: set[str] = field(default_factory=set)
    answered: set[str] = field(default_factory=set)
    viewed: bool = False
    rejected: bool = False
    sent: list[str] = field(default_factory=list)
    received: list[str] = field(default_factory=list)

    def _bot_uid(self) -> int:
        return self.game.sim.data.user(BOT).uid

    def say(self, text: str) -> None:
        self.game.sim.send_pm(DIRECTOR, BOT, text)
        self.sent.append(text)
        self._narrate(f"导演 → 机器人：{text}")

    def night(self, action: Action) -> None:
        """The scripted night happened: tell the bot (it answers with the effect and a code)."""
        out = "、".join(action.out)
        self.say(f"夜晚 第{action.day}日 出局：{out}" if out else f"平安夜 第{action.day}日")

    def read(self) -> None:
        """Read the bot's new PMs and answer them in one message."""
        bot = self._bot_uid()
        new = [m for m in self.game.sim.pms_between(BOT, DIRECTOR) if m.fromuid == bot and m.pmid > self.seen]
        answers: list[str] = []
        for message in new:
            self.seen = max(self.seen, message.pmid)
            self.received.append(message.text)
            self._narrate("机器人 → 导演：" + message.text.split("\n")[0])
            answers += [f"确认 {code}" for code in _CONFIRM.findall(message.text) if self._once(code)]
            for match in _OFFER.finditer(message.text):
                answers += self._decide(match.group(1).upper(), message.text, match.start())
        if answers:
            self.say("\n".join(answers))

    def _once(self, code: str) -> bool:
        if code in self.answered:
            return False
        self.answered.add(code)
        return True

    def _decide(self, code: str, text: str, at: int) -> list[str]:
        before = text[:at]
        # Which draft the offer is about: the 【全文】 header of a full text, else the
        # summary line just above the offer's line in a notice.
        full_text = before.rfind("【全文】") > before.rfind("【待你处理】")
        lines = before.split("\n")
        head = before[before.rfind("【全文】"):].split("\n")[0] if full_text else (
            lines[-2] if len(lines) >= 2 else lines[-1])
        if code in self.viewing and full_text:
            self.viewing.discard(code)
            return [f"批准 {code}"] if self._once(code) else []
        if code in self.answered or code in self.viewing:
            return []
        if not self.viewed and "最终计票" in head:
            self.viewed = True
            self.viewing.add(code)
            return [f"查看 {code}"]
        if not self.rejected and "公示" in head:
            self.rejected = True
            self.answered.add(code)
            return [f"驳回 {code} 理由：请再核对一遍出局名单（演示：驳回后机器人会重新起草）"]
        return [f"批准 {code}"] if self._once(code) else []

    def _narrate(self, line: str) -> None:
        if self.out is not None:
            print(f"[{self.game.clock.now():%m-%d %H:%M}] {line}", file=self.out)


def pm_director(game: Game, out: object | None = None) -> PmDirector:
    """The scripted director by PM, wired to the game (nights go by PM)."""
    director_ = PmDirector(game, out)
    game.driver.on_night = director_.night
    return director_


def play_by_pm(game: Game, director_: PmDirector, *, on_tick: Callable[[TickReport], None] | None = None,
               extra_passes: int = 12) -> None:
    """The game with the director acting by PM only: after each pass the director reads
    and answers. Past the script's end, a few more passes let the last answers land."""
    def after(report: TickReport) -> None:
        if on_tick:
            on_tick(report)
        director_.read()

    play(game, approve=False, on_tick=after)
    for _ in range(extra_passes):
        if not director.waiting(game.rt) and not game.rt.outbox.drafts(DraftState.APPROVED,
                                                                         DraftState.PUBLISHING):
            break
        game.clock.advance(minutes=10)
        after(game.agent.tick())


# How a draft went out, as the terminal says it.
_HOW_ZH = {"sent": "", "found": "（找到之前中断的那次发送）", "released": "（审核通过后公开）"}


def bot_posts(game: Game) -> list[tuple[str, int, str]]:
    """(thread key, pid, message) of every post the bot made, in order."""
    return game.world.bot_posts()


def keep_up(seconds: float | None, out) -> None:
    """Leave the forum up so the threads can be read in a browser."""
    try:
        if seconds is None and sys.stdin.isatty():
            input("论坛保持开启，按回车键结束… ")
        elif seconds:
            print(f"论坛再开 {seconds:.0f} 秒（Ctrl-C 结束）…", file=out)
            threading.Event().wait(seconds)
    except (KeyboardInterrupt, EOFError):
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep-serving", type=float, default=None,
                        help="seconds to keep the forum up at the end, to look at it in a browser "
                             "(default: until Enter when run in a terminal, else 0)")
    parser.add_argument("--quiet", action="store_true", help="only the summary")
    parser.add_argument("--desk", action="store_true",
                        help="you are the director: approve drafts and enter the nights on the desk "
                             "(http://127.0.0.1:8765/); the game waits for you")
    parser.add_argument("--config", type=Path, default=EXAMPLE_CONFIG if EXAMPLE_CONFIG.exists() else None,
                        help="the game config to play (default: the project's config.toml)")
    parser.add_argument("--discuz", choices=("x3", "7.2"), default="x3",
                        help="the simulated forum's generation: Discuz! X3.5 (default) or 7.2, the seeds' own")
    parser.add_argument("--gbk", action="store_true", help="serve the forum in GBK instead of UTF-8")
    parser.add_argument("--director-by-pm", action="store_true",
                        help="the director acts by forum private message only: the bot tells them by PM, a "
                             "scripted director answers (批准 / 查看 / 驳回, the nights with 夜晚 … and 确认)")
    parser.add_argument("--nights", action="store_true",
                        help="three days of a 14人简易 game on threads the director made ([[days]] in its "
                             "config) instead of config.toml's calendar: the nights by PM as in the default, the "
                             "director (by PM) only approves and confirms")
    args = parser.parse_args(argv)
    if args.desk and args.director_by_pm:
        parser.error("--desk and --director-by-pm are two ways to be the director: choose one")
    if args.nights:
        return nights_main(args)
    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s")
    started = time.monotonic()
    out = sys.stdout

    def show(draft: Draft) -> None:
        if args.quiet:
            return
        where = f"版块 fid {draft.fid}：{draft.subject}" if draft.kind is DraftKind.NEW_THREAD else f"帖子 tid {draft.tid}"
        print(f"\n── 导演批准 #{draft.id}（{draft_kind_zh(draft.kind)}，{where}）──", file=out)
        print(draft.body, file=out)

    def show_night(proposal: NightProposal) -> None:
        if args.quiet:
            return
        print(f"\n── 导演确认第{proposal.night}晚的结算（机器人的建议；含身份，只有导演看得到）──", file=out)
        print("\n".join(nightrun.proposal_lines(proposal.data, night=proposal.night, version=proposal.version)),
              file=out)

    def narrate(report: TickReport) -> None:
        if args.quiet:
            return
        for d in report.drafts:
            how = "自动批准" if d.state is DraftState.APPROVED else "等待导演批准"
            print(f"[{report.at:%m-%d %H:%M}] 起草 #{d.id} {draft_kind_zh(d.kind)}（{how}）", file=out)
        for p in report.published:
            if p.pid:
                how = _HOW_ZH.get(p.how.value, p.how.value)
                print(f"[{report.at:%m-%d %H:%M}] 已发出 #{p.draft_id}，pid {p.pid}{how}", file=out)
        for e in report.errors:
            print(f"[{report.at:%m-%d %H:%M}] {e}", file=out)

    with tempfile.TemporaryDirectory(prefix="forumbot-demo-") as tmp:
        import os

        os.environ.setdefault("FORUMBOT_PASSWORD", PASSWORD)
        clock = SimClock(start=GAME_START - timedelta(minutes=20))
        sim = Simulator(clock=clock, discuz=args.discuz, charset="gbk" if args.gbk else "utf-8")
        workdir = Path(tmp) / "演示局"  # the game's name (its folder's, as forumbot serve names it): its PMs say it
        workdir.mkdir()
        game = setup_game(workdir, clock=clock, sim=sim, config_source=args.config,
                          notify={"enabled": True} if args.director_by_pm else None,
                          poll_interval_seconds=600, poll_jitter_seconds=60)
        name = "Discuz! 7.2" if args.discuz == "7.2" else "Discuz! X3.5"
        print(f"forumbot 演示：模拟的 {name} 论坛（{sim.charset.upper()}），地址 {game.sim.base_url}", file=out)
        print(f"游戏：{len(game.world.sim.data.users) - 2} 名玩家，规则 14人简易规则（狼人×4、预言家、女巫、长老、村民×7），"
              f"机器人按日程开帖；夜晚由玩家用站内信行动，机器人裁定、结算，导演确认；直到一方获胜。"
              f"机器人账号 {BOT}", file=out)
        desk = None
        try:
            if args.desk:
                try:
                    desk = start_browser_director(game, out)
                except OSError as exc:  # the desk's port is taken: one line, not a traceback
                    from forumbot.desk import DEFAULT_PORT
                    from forumbot.desk.server import listen_error

                    print(listen_error("127.0.0.1", DEFAULT_PORT, exc, port_option=None), file=sys.stderr)
                    return 1
                play(game, on_tick=narrate, approve=False, wait_for_director=desk_waits(game, out))
            elif args.director_by_pm:
                print(f"导演（{DIRECTOR}）只用论坛站内信操作", file=out)
                by_pm = pm_director(game, None if args.quiet else out)
                play_by_pm(game, by_pm, on_tick=narrate)
            else:
                play(game, on_tick=narrate, on_approve=show, on_confirm=show_night, confirm_nights=True)
            posts = bot_posts(game)
            print("\n══ 机器人发的帖 ══", file=out)
            for subject, pid, message in posts:
                first = message.strip().splitlines()[0]
                print(f"pid {pid:>4}  {subject}: {first}", file=out)
            finals = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.FINAL_COUNT]
            for d in finals:
                print(f"\n── 第{d.day}日最终计票（pid {d.pid}）──\n{d.body}", file=out)
            announcements = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED)
                             if d.kind is DraftKind.ANNOUNCEMENT]
            for d in announcements:
                print(f"\n── 第{d.day}日公示（pid {d.pid}）──\n{d.body}", file=out)
            print_nights(game, out)
            print("\n── 给导演：标记与判罚建议（机器人只建议，由导演决定）──", file=out)
            for day in (1, 2, 3):
                snapshot = game.rt.store.tally(day)
                for flag in (snapshot.data["flags"] if snapshot else []):
                    print(f"第{day}日 标记 {FLAG_ZH.get(flag['kind'], flag['kind'])}：{flag['floor']}楼 {flag['player']} — {flag['detail']}",
                          file=out)
            for p in game.rt.store.proposals():
                print(f"第{p.day}日 建议 #{p.id}：{p.player} {PROPOSAL_ZH.get(p.reason_code, p.reason_code)}"
                      f"（{card_zh(p.color)}？）{p.detail}",
                      file=out)
            tids = game.world.tids
            base = game.sim.base_url
            board, thread = (("forumdisplay.php?fid=2", "viewthread.php?tid=") if args.discuz == "7.2" else
                             ("forum.php?mod=forumdisplay&fid=2", "forum.php?mod=viewthread&tid="))
            print(f"\n看帖：{base}{board}", file=out)
            print(f"  第2日投票帖：{base}{thread}{tids['vote2']}", file=out)
            if args.director_by_pm:
                pms = game.sim.pms_between(BOT, DIRECTOR)
                bot_uid = game.sim.data.user(BOT).uid
                print(f"站内信：机器人发 {sum(m.fromuid == bot_uid for m in pms)} 条，"
                      f"导演发 {sum(m.fromuid != bot_uid for m in pms)} 条；"
                      f"仍待处理的草稿：{len(director.waiting(game.rt))} 篇", file=out)
            print(f"机器人发帖 {len(posts)} 篇，向论坛请求 {len(game.sim.requests)} 次，"
                  f"用时 {time.monotonic() - started:.1f} 秒", file=out)
            keep_up(args.keep_serving, out)
        finally:
            if desk is not None:
                desk.stop()
            game.close()
            game.sim.stop()
    return 0


def nights_main(args: argparse.Namespace) -> int:
    """``--nights``: the 14人简易 game (``forumbot.demo.nights``) with its nights played by the
    players' PMs; the director acts by PM only and types nothing but approvals and
    confirmations. At the end: what each night became, and what the bot told whom."""
    from forumbot.demo.nights import PLAYERS14, nights_plan

    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s")
    started = time.monotonic()
    out = sys.stdout
    with tempfile.TemporaryDirectory(prefix="forumbot-demo-") as tmp:
        import os

        os.environ.setdefault("FORUMBOT_PASSWORD", PASSWORD)
        plan = nights_plan()
        clock = SimClock(start=plan.days[0].start - timedelta(minutes=20))
        sim = Simulator(clock=clock, discuz=args.discuz, charset="gbk" if args.gbk else "utf-8")
        workdir = Path(tmp) / "演示局"
        workdir.mkdir()
        game = setup_game(workdir, clock=clock, sim=sim, plan=plan, notify={"enabled": True},
                          poll_interval_seconds=600, poll_jitter_seconds=60)
        name = "Discuz! 7.2" if args.discuz == "7.2" else "Discuz! X3.5"
        print(f"forumbot 演示：模拟的 {name} 论坛（{sim.charset.upper()}），地址 {sim.base_url}", file=out)
        print(f"游戏：{len(PLAYERS14)} 名玩家，3 天，规则 14人简易规则（狼人×4、预言家、女巫、长老、村民×7）；"
              f"夜晚由玩家用站内信行动，机器人裁定、结算，导演只确认", file=out)
        try:
            by_pm = pm_director(game, None if args.quiet else out)
            by_pm.viewed = by_pm.rejected = True  # this director only approves and confirms
            play_by_pm(game, by_pm)
            bot_uid = sim.data.user(BOT).uid
            print_nights(game, out)
            print("\n══ 机器人给玩家的站内信（演示才打印：这些都是秘密）══", file=out)
            for player in PLAYERS14:
                for m in sim.pms_between(BOT, player):
                    who = "机器人 → " + player if m.fromuid == bot_uid else player + " → 机器人"
                    first = re.sub(r"^［[^］]*］", "", m.text.split("\n")[0])
                    print(f"[{m.at:%m-%d %H:%M}] {who}：{first}", file=out)
            sent = sum(1 for m in sim.data.pms.messages.values() if m.fromuid == bot_uid)
            print(f"\n站内信：机器人发 {sent} 条；导演发 {len(by_pm.sent)} 条（只有批准和确认）；"
                  f"仍待处理的草稿：{len(director.waiting(game.rt))} 篇；"
                  f"用时 {time.monotonic() - started:.1f} 秒", file=out)
            keep_up(args.keep_serving, out)
        finally:
            game.close()
            sim.stop()
    return 0


def print_nights(game: Game, out) -> None:
    """What each night became, and the end post — for the director's eyes (the demo's)."""
    proposals = game.rt.store.night_proposals()
    if not proposals:
        return
    print("\n══ 每一晚 ══", file=out)
    for p in proposals:
        who = "、".join(p.data.get("out") or ()) or "无人"
        marks = "、".join(p.data.get("marks") or ())
        win = p.data.get("win")
        print(f"第{p.night}晚（第{p.version}版，{'已确认' if p.state == 'confirmed' else p.state}）：出局 {who}"
              + (f"；标记 {marks}" if marks else "") + (f"；{win['faction']}获胜" if win else ""), file=out)
    end = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.GAME_END]
    for d in end:
        print(f"\n── 游戏结束帖（pid {d.pid}）──\n{d.body}", file=out)


def start_browser_director(game: Game, out, *, port: int | None = None, poll_seconds: float = 3.0):
    """Serve the desk on the game's clock; the scripted nights wait for the director.

    ``port``: the desk's port (default ``forumbot.desk.DEFAULT_PORT``; 0 picks a free one)."""
    from forumbot.desk import DEFAULT_PORT, start_desk
    from forumbot.agent.health import Health
    from forumbot.agent.instance import lock_path

    desk = start_desk(game.rt.config.path, port=DEFAULT_PORT if port is None else port, clock=game.clock,
                      poll_seconds=poll_seconds)
    # Held as `forumbot run` holds it, so the desk shows the demo's agent as running.
    game.lock = InstanceLock.acquire(lock_path(game.rt.settings.agent.database), role="agent",
                                     since=game.clock.now())
    game.lock.update(desk={"url": desk.url})
    game.agent.health = Health(game.lock)
    game.driver.on_night = lambda action: print(
        f"[{game.clock.now():%m-%d %H:%M}] 第{action.day}日前的夜晚：请在导演台（{desk.url}）把 "
        f"{'、'.join(action.out)} 录入为出局，游戏才会继续", file=out)
    print(f"你是导演：请打开 {desk.url}", file=out)
    return desk


def desk_waits(game: Game, out) -> Callable[[], bool]:
    """True while a manual draft waits, a scripted night has not been entered or the bot's
    resolution of a night waits for confirmation."""
    said: set[str] = set()

    def waiting() -> bool:
        drafts = director.waiting(game.rt)
        nights = [a for a in game.driver.actions[:game.driver.done]
                  if a.kind == "night" and game.rt.store.night_result(a.day) is None]
        proposed = waiting_nights(game)  # the bot resolved a night: the director confirms it
        reason = (f"#{drafts[0].id}（{draft_kind_zh(drafts[0].kind)}）等待你批准" if drafts else
                  f"第{nights[0].day}日前的夜晚等待你录入" if nights else
                  f"第{proposed[0].night}晚的结算建议等待你在导演台确认" if proposed else "")
        if reason and reason not in said:
            said.add(reason)
            print(f"[{game.clock.now():%m-%d %H:%M}] {reason}", file=out)
        return bool(reason)

    return waiting


if __name__ == "__main__":
    raise SystemExit(main())
