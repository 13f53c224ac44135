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

# Thread pages → posts (HTML and mobile API), charsets.
from parsers.api_page import parse_thread_api  # noqa: E402
from parsers.charset import decode, detect_charset  # noqa: E402
from parsers.html_page import parse_thread_html  # noqa: E402
from parsers.pages import read_page, read_page_files  # noqa: E402

__all__ += [
    "decode",
    "detect_charset",
    "parse_thread_api",
    "parse_thread_html",
    "read_page",
    "read_page_files",
]

# Post text → vote declaration; name normalisation shared with the engine.
from parsers.text import (  # noqa: E402
    normalise_name,
    own_text,
    strip_bbcode,
    strip_quotes,
    strip_zero_width,
)
from parsers.votes import parse_vote  # noqa: E402

__all__ += [
    "normalise_name",
    "own_text",
    "parse_vote",
    "strip_bbcode",
    "strip_quotes",
    "strip_zero_width",
]
