"""Which rule sets have identities and nights here, by their config name."""

from __future__ import annotations

from engine.night.base import Mode
from engine.night.dual import Dual
from engine.night.s09 import S09
from engine.night.s10 import S10
from engine.night.simple14 import Simple14
from engine.night.sheet import SheetError

MODES: dict[str, Mode] = {m.code: m for m in (Simple14(), Dual(), S10(), S09())}
LATER: dict[str, str] = {}  # named in SPEC §10, not built yet: none


class ModeError(ValueError):
    """A rule set without identities here; the message names it (Chinese)."""


def mode_for(ruleset: str, version: str | None = None) -> Mode:
    """The rule set's mode; S10 with ``version`` (``[game].version``, e.g. ``46D``): the
    mode of that row of the table (its composition and option digits). A version that is
    not S10's, or not in the table, is a ModeError naming it."""
    found = MODES.get(ruleset)
    if found is not None and version:
        if not isinstance(found, S10):
            raise ModeError(f"{found.title}没有版本号（[game].version 只用于S10）")
        try:
            return S10.for_version(version)
        except SheetError as exc:
            raise ModeError(str(exc)) from exc
    if found is not None:
        return found
    if ruleset in LATER:
        raise ModeError(f"{LATER[ruleset]}的身份与夜晚结算尚未支持（已支持：{'、'.join(MODES)}）")
    raise ModeError(f"未知规则“{ruleset}”（已支持：{'、'.join(MODES)}）")
