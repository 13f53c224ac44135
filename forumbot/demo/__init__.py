"""Scripted games on the bundled simulator: the demo, the end-to-end tests and the soak.

    play.py       ``make demo`` / ``python -m forumbot.demo``: a whole game, counted by the agent
    scenario.py   the scripted three-day game (players' posts at game times, a Driver)
    soak.py       ``make soak``: seven game days with faults and kills, against a clean run
    harness/      agents in child processes over real HTTP, for crash and many-game tests

The top of the house beside the faces: it may import everything, nothing imports it
except tests and benchmarks.
"""
