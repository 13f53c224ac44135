"""The game's configuration: what a director writes and where the bot's password comes from.

    gamefile.py   the game config (TOML) → engine objects: [forum], [game], [[days]],
                  [calendar], [[events]]; every problem a ConfigError naming the key
    settings.py   the agent's own tables: [bot], [agent], [policies], [notify]
    secrets.py    the forum password: environment, a private file, systemd credentials

Reads files and the environment, nothing else: it may import ``engine``, ``parsers`` and
``forumbot.wording``, never the forum, the store or anything above them.
"""
