"""``python -m forumbot.demo``: the demo's game (see ``forumbot.demo.play``)."""

from forumbot.demo.play import main

raise SystemExit(main())
