"""One module per CLI command (or group of commands).

Each module defines ``commands``: a list of ``click.Command`` objects. ``forumbot.cli``
finds them here, so adding a command never means editing a shared file.
"""
