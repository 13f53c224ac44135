"""Discuz! X3.5: ``forum.php?mod=…``, ``member.php?mod=logging``, the touch pages and the
mobile API (``api/mobile/index.php``) — see ``routes`` and ``api``."""
