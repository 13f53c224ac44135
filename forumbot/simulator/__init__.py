"""A Discuz!-compatible forum on 127.0.0.1 for demos and tests: X3.5 or 7.2.

See ``core.Simulator`` for the Python API (``discuz="x3"|"7.2"``, ``charset``), ``model``
for ``Settings`` (the switches), ``faults`` for fault injection, ``agents`` for what
robots and phones get, and ``script`` for the TOML/JSON script format
``forumbot simulate --script`` reads. Each generation has its own package: ``x3/`` and
``d72/`` (routes, pages, language texts) over the shared model, clock, BBCode and server.
"""

from forumbot.simulator.clock import BEIJING, SimClock
from forumbot.simulator.core import Simulator
from forumbot.simulator.faults import Fault
from forumbot.simulator.model import GENERATIONS, ForumDataError, Settings, StoredPost
from forumbot.simulator.wire import RequestRecord

__all__ = ["BEIJING", "GENERATIONS", "Fault", "ForumDataError", "RequestRecord", "Settings",
           "SimClock", "Simulator", "StoredPost"]
