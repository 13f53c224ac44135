"""``forumbot serve``: every game of a forum from one process, one bot account's session
shared by all of them (docs/service.md).

* ``settings``  — the service file (``[service]``) and its options;
* ``scanner``   — the game configs in the folder, looked at on every scan;
* ``pool``      — one forum session per (forum, account): one login, throttle, flood clock;
* ``schedule``  — which game's pass comes next and which threads it reads (pure);
* ``agent``     — the game's ``Agent`` with the scheduler's choices around it;
* ``game``      — one game's life in the service, and everything that can go wrong with it;
* ``summary``   — one game in one line (the desk's list, ``/healthz``, ``status --all``);
* ``runner``    — the loop: scan, pick, pass, log.
"""

from forumbot.service.runner import Service, ServiceBusy
from forumbot.service.settings import ServiceSettings, load_service

__all__ = ["Service", "ServiceBusy", "ServiceSettings", "load_service"]
