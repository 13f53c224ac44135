"""Which rule sets have identities and nights here, by their config name."""

from __future__ import annotations

from engine.night.base import Mode
from engine.night.dual import Dual
from engine.night.simple14 import Simple14

MODES: dict[str, Mode] = {m.code: m for m in (Simple14(), Dual())}
# Named in SPEC §10 but not built yet: each will be one module beside simple14 and dual.
LATER = {"s10": "官方规则S10", "s09": "官方规则S09"}


class ModeError(ValueError):
    """A rule set without identities here; the message names it (Chinese)."""


def mode_for(ruleset: str) -> Mode:
    found = MODES.get(ruleset)
    if found is not None:
        return found
    if ruleset in LATER:
        raise ModeError(f"{LATER[ruleset]}的身份与夜晚结算尚未支持（已支持：{'、'.join(MODES)}）")
    raise ModeError(f"未知规则“{ruleset}”（已支持：{'、'.join(MODES)}）")
