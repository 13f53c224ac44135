"""Discuz! 7.2: ``index.php``, ``forumdisplay.php``, ``viewthread.php``, ``logging.php``,
``post.php``, ``redirect.php`` — the generation the seeds' own forum ran (see ``routes``)."""
