from __future__ import annotations

import pytest

from forumbot.store.marker import (
    KIND_LETTERS,
    Marker,
    add_marker,
    find_marker_in_text,
    is_marker,
    make_marker,
    parse_marker,
    read_marker,
    strip_marker,
)
from forumbot.store.outbox import DraftKind

MARKER = "3fa9c1-7e21d0-17-f1"
LEGACY = "fb-3fa9c1-17-0b5e2d"  # the form before schema 9, on forums of games already running


def test_outbox_marker__names_game_state_draft_kind_and_day() -> None:
    marker = make_marker(game="3fa9c1", state="7e21d0", draft_id=17, kind="final_count", day=1)
    assert marker == MARKER
    assert parse_marker(marker) == Marker(MARKER, "3fa9c1", "7e21d0", 17, "final_count", 1)
    assert make_marker(game="3fa9c1", state="7e21d0", draft_id=3, kind="card_notice", day=None) == "3fa9c1-7e21d0-3-c"


def test_outbox_marker__every_draft_kind_has_its_own_letter() -> None:
    assert set(KIND_LETTERS) == {k.value for k in DraftKind}
    assert len(set(KIND_LETTERS.values())) == len(KIND_LETTERS)
    for kind in DraftKind:
        marker = make_marker(game="000000", state="ffffff", draft_id=9, kind=kind.value, day=12)
        assert (parse_marker(marker).kind, parse_marker(marker).day) == (kind.value, 12)


def test_outbox_marker__says_what_it_is_in_a_small_grey_last_line() -> None:
    assert add_marker("计票\n包子 3票\n\n", MARKER) == (
        "计票\n包子 3票\n[size=1][color=#999999]机器人标记 3fa9c1-7e21d0-17-f1[/color][/size]"
    )


FORMS = [
    pytest.param("计票\n[size=1][color=#999999]机器人标记 {m}[/color][/size]", id="bbcode"),
    pytest.param('计票<br />\n<font size="1"><font color="#999999">机器人标记 {m}</font></font>', id="discuz-html"),
    pytest.param('计票<br />\n<font size="1"><font color="#999999">机器人标记&nbsp;{m}</font></font>', id="html-nbsp"),
    pytest.param("计票\n机器人标记 {m}", id="parsed-plain-text"),
    pytest.param("计票\r\n机器人标记 {m}\r\n", id="api-message"),
]
LEGACY_FORMS = [
    pytest.param("计票\n[size=1][color=#999999]forumbot:{m}[/color][/size]", id="legacy-bbcode"),
    pytest.param('计票<br />\n<font size="1"><font color="#999999">forumbot:{m}</font></font>', id="legacy-html"),
    pytest.param("计票\nforumbot:{m}", id="legacy-plain-text"),
    # a draft of an upgraded game, sent after the upgrade: its old marker, the new label
    pytest.param("计票\n[size=1][color=#999999]机器人标记 {m}[/color][/size]", id="legacy-marker-new-label"),
]


@pytest.mark.parametrize("form", FORMS)
def test_outbox_marker__found_in_every_form_of_the_post(form: str) -> None:
    assert find_marker_in_text(form.format(m=MARKER)) == MARKER


@pytest.mark.parametrize("form", LEGACY_FORMS)
def test_outbox_marker__the_form_before_schema_9_is_still_found(form: str) -> None:
    found = read_marker(form.format(m=LEGACY))
    assert found == Marker(LEGACY, "3fa9c1", None, 17, None, None, legacy=True)
    assert found.writer == "old:3fa9c1"


def test_outbox_marker__the_last_one_wins() -> None:
    text = f"引用 机器人标记 000000-000000-1-r1 后\n机器人标记 {MARKER}"
    assert find_marker_in_text(text) == MARKER


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("计票 包子 3票", id="none"),
        pytest.param(MARKER, id="without-label"),
        pytest.param("机器人标记 3fa9c1-7e21d0-x-f1", id="mangled"),
        pytest.param("机器人标记 3fa9c1-7e21d0-17-f1x", id="run-on"),
        pytest.param("fb-3fa9c1-17-0b5e2d", id="legacy-without-prefix"),
    ],
)
def test_outbox_marker__absent(text: str) -> None:
    assert find_marker_in_text(text) is None


@pytest.mark.parametrize("marker", [MARKER, LEGACY])
def test_outbox_marker__strip_undoes_add(marker: str) -> None:
    assert strip_marker(add_marker("计票\n包子 3票", marker)) == "计票\n包子 3票"


def test_outbox_marker__strip_takes_the_legacy_line_too() -> None:
    assert strip_marker(f"计票\n[size=1][color=#999999]forumbot:{LEGACY}[/color][/size]") == "计票"


def test_outbox_marker__refuses_a_bad_marker() -> None:
    assert not is_marker("fb-[b]bold[/b]")
    with pytest.raises(ValueError, match="not a forumbot marker"):
        add_marker("x", "fb-[b]bold[/b]")
    with pytest.raises(ValueError, match="six hex digits"):
        make_marker(game="S10", state="7e21d0", draft_id=1, kind="final_count", day=1)


@pytest.mark.parametrize("charset", ["utf-8", "gbk"])
def test_outbox_marker__the_line_alone_passes_discuz_minimum_post_size(charset: str) -> None:
    from forumbot.agent.preflight import SHORTEST_BOT_POST
    from forumbot.simulator.model import post_bytes

    shortest = add_marker("好", make_marker(game="000000", state="000000", draft_id=1, kind="card_notice", day=None))
    assert post_bytes(shortest, charset) >= SHORTEST_BOT_POST > 10  # Discuz's default minpostsize
