"""The agent: the unattended loop that polls, keeps, rules, tallies, drafts and publishes.

    loop.py       Agent — one tick is one pass over the game's threads and the outbox
    instance.py   one agent per game (an OS lock beside the game's database)
    health.py     what the running agent cannot do right now, said once
    preflight.py  ``forumbot check``: does the forum let the bot do its work?
    offline.py    recount a day from saved pages, the agent's steps minus the network
    refusals.py   the errors that are a person's to fix, said in one Chinese line
    journal.py    the log lines a director reads (console and log file)

Stands on the game, the store, the forum client and the config; the director-by-PM hands
it a notifier from above (``Agent(notifier=…)``), so nothing here imports ``notify``.
"""
