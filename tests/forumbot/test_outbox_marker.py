from __future__ import annotations

import random

import pytest

from forumbot.marker import add_marker, find_marker_in_text, game_hash, make_marker, strip_marker

MARKER = "fb-3fa9c1-17-0b5e2d"


def test_outbox_marker__format() -> None:
    marker = make_marker("S10 第三局", 17, random.Random(1))
    prefix, ghash, draft_id, suffix = marker.split("-")
    assert (prefix, ghash, draft_id) == ("fb", game_hash("S10 第三局"), "17")
    assert len(suffix) == 6 and int(suffix, 16) >= 0
    assert make_marker("S10 第三局", 17, random.Random(2)) != marker


def test_outbox_marker__is_a_small_grey_last_line() -> None:
    assert add_marker("计票\n包子 3票\n\n", MARKER) == (
        "计票\n包子 3票\n[size=1][color=#999999]forumbot:fb-3fa9c1-17-0b5e2d[/color][/size]"
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("计票\n[size=1][color=#999999]forumbot:fb-3fa9c1-17-0b5e2d[/color][/size]",
                     id="bbcode"),
        pytest.param('计票<br />\n<font size="1"><font color="#999999">forumbot:fb-3fa9c1-17-'
                     '0b5e2d</font></font>', id="discuz-html"),
        pytest.param("计票\nforumbot:fb-3fa9c1-17-0b5e2d", id="parsed-plain-text"),
        pytest.param("引用 forumbot:fb-000000-1-000000 后\nforumbot:fb-3fa9c1-17-0b5e2d",
                     id="last-one-wins"),
    ],
)
def test_outbox_marker__found_in_every_form_of_the_post(text: str) -> None:
    assert find_marker_in_text(text) == MARKER


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("计票 包子 3票", id="none"),
        pytest.param("fb-3fa9c1-17-0b5e2d", id="without-prefix"),
        pytest.param("forumbot:fb-3fa9c1-x-0b5e2d", id="mangled"),
    ],
)
def test_outbox_marker__absent(text: str) -> None:
    assert find_marker_in_text(text) is None


def test_outbox_marker__strip_undoes_add() -> None:
    assert strip_marker(add_marker("计票\n包子 3票", MARKER)) == "计票\n包子 3票"


def test_outbox_marker__refuses_a_bad_marker() -> None:
    with pytest.raises(ValueError, match="not a forumbot marker"):
        add_marker("x", "fb-[b]bold[/b]")
