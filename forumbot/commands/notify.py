"""``forumbot notify``: where the PMs to the director stand; ``--test`` sends one now."""

from __future__ import annotations

import click

from forumbot.commands._common import config_option, friendly, runtime


@click.command("notify")
@config_option
@click.option("--test", "test", is_flag=True, help="现在给导演发一条测试站内信（和其他站内信一样只发一次）。")
@friendly
def notify(config_path: str, test: bool) -> None:
    """站内信通知导演（配置 [notify]）：现在的设置和发送情况。

    列出导演在论坛上是谁、机器人何时告诉过导演什么、等待发出或发送失败的站内信、
    最近读到的导演指令。加 --test 现在就给导演发一条站内信：开局前用它检查设置
    （导演回复「状态」可以检查回来的方向）。

    例：forumbot notify --test
    """
    from forumbot.discuz.errors import ForumUnavailable
    from forumbot.notify import Notifier
    from forumbot.notify.tell import NOTIFY_ALARM_KEY
    from forumbot.game.runtime import make_client

    with runtime(config_path) as rt:
        s = rt.settings.notify
        now = rt.clock.now()
        click.echo(f"站内信通知：{'开启' if s.enabled else '关闭（[notify].enabled = false）'}")
        notifier = Notifier(rt, None)
        uid = notifier.director_uid(now)
        who = s.director or "（未设置：[game].director 或 [notify].director）"
        click.echo(f"导演：{who}，uid {uid}" if uid else
                   f"导演：{who}，uid 未知 —— 机器人读到导演在游戏帖里发的帖后自动得知，或在 [notify].director_uid 写上")
        kinds = "、".join(_KIND_ZH.get(k, k) for k in sorted(s.kinds, key=list(_KIND_ZH).index))
        click.echo(f"通知的事：{kinds}；两次通知至少间隔 {s.min_interval_seconds:g} 秒"
                   + (f"；免打扰 {s.quiet_hours[0]:%H:%M}–{s.quiet_hours[1]:%H:%M}" if s.quiet_hours else ""))
        box = notifier.pmbox
        last = box.last_sent()
        click.echo(f"上一条站内信：{last.sent_at:%m-%d %H:%M}（pmid {last.pmid}）" if last and last.sent_at
                   else "还没有发过站内信")
        waiting = box.pending()
        if waiting:
            click.echo(f"等待发出：{len(waiting)} 条（运行中的机器人会发出，只发一次）")
        for row in box.rows("failed"):
            click.echo(f"发送失败：#{row.id}（{row.created_at:%m-%d %H:%M}）")
        alarm = rt.store.alarm(NOTIFY_ALARM_KEY)
        if alarm is not None:
            click.echo(f"警报：{alarm.text}")
        for row in rt.store.db.query("SELECT * FROM notify_handled ORDER BY pmid DESC LIMIT 5"):
            click.echo(f"读到的消息 pmid {row['pmid']}：{row['text'].splitlines()[0] if row['text'] else ''}")
        if not test:
            return
        if not s.enabled:
            raise click.ClickException("站内信通知已关闭：先在配置里设 [notify].enabled = true")
        if uid is None:
            raise click.ClickException("不知道导演的 uid，无法发送：请在 [notify].director_uid 写上导演的 uid")
        client = make_client(rt)
        client.ensure_logged_in()
        notifier = Notifier(rt, client)
        with rt.store.write():
            rows = box.queue(uid, "【测试】机器人可以给你发站内信了。有需要你处理的事时，机器人会这样告诉你；"
                                  "回复「状态」可以看现在的局面。", purpose="test", now=now,
                             charset=client.charset or "utf-8")
            rt.store.audit("operator", "notify.test", {"pm": rows[0].id, "director_uid": uid}, at=now)
        try:
            outcomes = notifier.send_pending(now)
        except ForumUnavailable as exc:
            raise click.ClickException(f"论坛无法访问（{exc.cause_name}）：{client.base_url}，请稍后再试；"
                                       "这条测试消息留在队列里，运行中的机器人会发出它（只发一次）") from None
        done = [o for o in outcomes if o.row == rows[0].id and o.how in ("sent", "found")]
        if done:
            click.echo(f"已发给导演（uid {uid}）：pmid {done[0].pmid}")
        else:
            state = box.get(rows[0].id)
            click.echo(f"没有发出（{state.state}）：{state.last_error or '运行中的机器人正在发送，它会在下一轮发出'}")
            raise SystemExit(1)


_KIND_ZH = {"alarm": "警报", "final_count": "最终计票待审批", "failed": "发送失败", "approval": "其他待审批",
            "night_result": "夜晚结果待录入", "successor": "警长继任", "card_proposal": "判罚提议",
            "stale_published": "已发布的帖子过时", "recovery": "论坛恢复"}

commands = [notify]
