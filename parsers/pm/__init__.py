"""Private-message pages (站内信 / 短消息) → records: one module per generation.

    read_pm_page(content, content_type=…, source=…, tz=…, now=…) -> PmPage

``x35`` reads X3.5's ``home.php?mod=space&do=pm`` pages and the mobile API's ``mypm``
JSON; ``d72`` reads 7.2's ``pm.php`` pages and its reply answer. Which one applies is
read from the content (JSON → the X3.5 API; XML → an ajax answer; HTML → the markers of
either). Anything else raises ``PageParseError`` naming the source.
"""

from parsers.pm.models import PmConversation, PmPage, PmPageKind, PrivateMessage
from parsers.pm.read import read_pm_page

__all__ = ["PmConversation", "PmPage", "PmPageKind", "PrivateMessage", "read_pm_page"]
