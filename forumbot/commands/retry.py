"""``forumbot retry ID``: send a failed post again (the desk's 重发, the same library call)."""

from __future__ import annotations

import click

from forumbot.game import director as lib
from forumbot.commands._common import config_option, friendly, runtime


@click.command("retry")
@config_option
@click.argument("draft_id", type=int, metavar="草稿编号")
@friendly
def retry(config_path: str, draft_id: int) -> None:
    """重发一篇发送失败的帖子（失败的原因解决之后，例如关掉了验证码、帖子重新开放）。

    运行中的机器人会先在论坛上找它，没找到才发出，所以绝不会发两次。记入审计日志。

    例：forumbot retry 7
    """
    from forumbot.commands.director import STATE_ZH, _draft_line
    from forumbot.store.outbox import DraftState, InvalidTransitionError, UnknownDraftError

    with runtime(config_path) as rt:
        try:
            d = lib.retry(rt, draft_id, rt.clock.now(), actor=lib.DIRECTOR_CLI)
        except UnknownDraftError:
            raise click.ClickException(f"没有帖子 #{draft_id}（forumbot drafts --all 列出全部）") from None
        except InvalidTransitionError:
            state = rt.outbox.get(draft_id).state
            hint = {DraftState.DRAFT: f"它还在等审批：forumbot approve {draft_id}",
                    DraftState.PENDING_MODERATION: "它在论坛上等版主审核，不需要重发"}.get(state, "")
            raise click.ClickException(
                f"帖子 #{draft_id} 现在是「{STATE_ZH.get(state.value, state.value)}」，只有发送失败的帖子可以重发"
                + (f"；{hint}" if hint else "")) from None
        click.echo(f"已重新批准 {_draft_line(d)}：运行中的机器人会先在论坛上找它，没找到才发出（只发一次）")


commands = [retry]
