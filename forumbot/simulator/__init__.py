"""A Discuz! X3.5-compatible forum on 127.0.0.1 for demos and tests.

See ``core.Simulator`` for the Python API, ``faults`` for fault injection and ``script``
for the TOML/JSON script format ``forumbot simulate --script`` reads.
"""

from forumbot.simulator.clock import BEIJING, SimClock
from forumbot.simulator.core import Simulator
from forumbot.simulator.faults import Fault
from forumbot.simulator.model import ForumDataError, Settings, StoredPost
from forumbot.simulator.wire import RequestRecord

__all__ = ["BEIJING", "Fault", "ForumDataError", "RequestRecord", "Settings", "SimClock",
           "Simulator", "StoredPost"]
