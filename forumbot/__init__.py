"""forumbot: the director's assistant for 版杀 games on Discuz! forums."""

__version__ = "0.1.0"
