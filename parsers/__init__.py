"""Reading Discuz! pages: HTML/JSON → posts; post text → vote declarations.

Knows nothing of the game.
"""

from parsers.errors import PageParseError
from parsers.models import (
    ABSTAIN,
    ContentNotice,
    DeclarationProblem,
    Font,
    Post,
    Quote,
    ThreadPage,
    TimePrecision,
    VoteDeclaration,
    VoteKind,
)

__all__ = [
    "ABSTAIN",
    "ContentNotice",
    "DeclarationProblem",
    "Font",
    "PageParseError",
    "Post",
    "Quote",
    "ThreadPage",
    "TimePrecision",
    "VoteDeclaration",
    "VoteKind",
]
