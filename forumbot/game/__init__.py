"""The game as the bot sees it: its state, the director's game log, and every text it drafts.

    state.py       the game: the config's start plus every stored event, in game time (§9)
    gamelog.py     enter / preview / take back / correct events (the director's game log)
    director.py    what the director does, as library calls the CLI, desk and PMs share
    announce.py    the morning 公示, final counts, notices — drafted into the outbox
    drafting.py    tallies and decisions → BBCode bodies
    views.py       what the templates see, built from the SPEC §7 tally JSON
    render.py      Jinja2 → Discuz BBCode, player text escaped
    ending.py      when the game is over
    attention.py   what needs a person now (status, the desk's banner, notifications)
    alarms.py      refusals only a person can cure, said in Chinese with who must act
    provenance.py  which game and state the bot's posts belong to; takeover.py adopts them
    entry.py       a director's typed time or correction, read once for every face
    runtime.py     everything a command needs, built from one config file
    clock.py       time sources (system, accelerated); nothing here calls now() itself

May import the store, the forum client, the config, ``engine`` and ``parsers``; never the
agent, the director-by-PM, the service or the faces.
"""
