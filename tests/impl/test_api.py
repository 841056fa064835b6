"""The library API (SPEC 1, 2, 3, 7): zoom, split, clip."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from impl.chat import Chat, clip, split
from impl.errors import Refused
from impl.planner import Planner
from impl.profile import Profile
from tests.impl.helpers import SMALL, Clock, reopen


def test_zoom_opens_messages_whole_and_nodes_into_their_halves(tmp_path: Path) -> None:
    with reopen(tmp_path) as chat:
        long = "line one\nline two " + "x" * 100
        chat.append("user", long)
        for k in range(1, 4):
            chat.append("unii", f"reply {k}")
        assert chat.zoom(0, 1) == "user: " + long
        assert chat.zoom(2, 1) == "unii: reply 2"
        assert chat.zoom(2, 2) == "<chat>\n2+1|unii: reply 2\n3+1|unii: reply 3\n</chat>"
        assert chat.zoom(0, 2) == (
            "<chat>\n0+1|(not summarized yet: zoom it)\n1+1|unii: reply 1\n</chat>"
        )
        for bad in [(1, 2), (0, 3), (-2, 2), (0, 0), (4, 1), (0, 8)]:
            with pytest.raises(Refused) as refused:
                chat.zoom(*bad)
            assert refused.value.rule == "zoom"


def test_zoom_is_the_planner_s_and_follows_the_chat_s_profile(tmp_path: Path) -> None:
    """Chat.zoom is the planner's zoom (SPEC 3.5), so it writes a message's
    line with the profile's word for its kind (SPEC 10), as the view does."""
    words = Profile(kind_words={"user": "you", "unii": "talk"})
    with Chat.open(tmp_path, SMALL, Clock(), profile=words) as chat:
        chat.append("user", "hello")
        chat.append("unii", "hi there")
        assert chat.zoom(0, 1) == "you: hello"
        assert chat.zoom(0, 2) == "<chat>\n0+1|you: hello\n1+1|talk: hi there\n</chat>"
        assert chat.render() == "<chat>\n0+1|you: hello\n1+1|talk: hi there\n</chat>"
        with pytest.raises(Refused, match="zoom: messages 0..3 are not all logged yet"):
            chat.zoom(0, 4)


def test_long_text_is_split_whole_over_several_messages(tmp_path: Path) -> None:
    with reopen(tmp_path, replace(SMALL, split=100)) as chat:
        text = "".join(f"{k:04d}" for k in range(60))  # 240 characters
        assert chat.append("user", text) == [0, 1, 2]
        pieces = [chat.planner.tree.messages[i][1] for i in range(3)]
        assert pieces == [text[:100], text[100:200], text[200:]]
        assert chat.append("user", "short") == [3]


def test_split_never_parts_a_crlf() -> None:
    assert split("abc\r\ndef", 4) == ["abc", "\r\nde", "f"]
    assert split("", 4) == [""]


def test_tool_output_is_clipped_head_and_tail_with_a_marker(tmp_path: Path) -> None:
    text = "H" * 150 + "M" * 700 + "T" * 150  # 1,000 characters
    clipped = clip(text, 300)
    assert len(clipped) <= 300
    # The marker is 30 characters, so 270 of the text are kept and 730 cut.
    marker = "\n[... 730 characters cut ...]\n"
    assert marker in clipped
    head, tail = clipped.split(marker)
    assert (len(head), len(tail)) == (135, 135)
    assert text.startswith(head) and text.endswith(tail)
    assert clip("short", 300) == "short"
    with reopen(tmp_path, replace(SMALL, tool_cap=300)) as chat:
        assert chat.append("tool", text) == [0]
        assert chat.planner.tree.messages[0] == ("tool", clipped)


def test_unknown_kinds_and_bad_text_are_refused_before_logging(tmp_path: Path) -> None:
    with reopen(tmp_path) as chat:
        with pytest.raises(Refused) as refused:
            chat.append("bot", "hi")
        assert refused.value.rule == "kind"
        with pytest.raises(Refused) as refused:
            chat.append("user", "bad \ud800")
        assert refused.value.rule == "utf8"
        with pytest.raises(Refused):
            chat.date(0)
    assert list((tmp_path / "main").iterdir()) == []


def test_nodes_outside_the_log_are_refused_not_wrapped_around() -> None:
    # A negative index would wrap around a Python list to the newest node.
    planner = Planner(SMALL)
    for k in range(4):
        planner.message("user", f"m{k}")
    assert planner.text((0, 3)) == "user: m3"
    for outside in [(0, -1), (-1, 0), (1, -1), (0, 4), (2, 1), (64, 0)]:
        assert planner.text(outside) is None
        with pytest.raises(Refused) as refused:
            planner.start(outside)
        assert refused.value.rule == "node_exists"
        with pytest.raises(KeyError):
            planner.source(outside)


def test_message_sizes_count_utf8_bytes_with_or_without_ascii() -> None:
    # "user: " is 6 bytes; "é" is 2 bytes and "😀" 4: the leaf is free (NODE
    # bytes or fewer) exactly when the line's UTF-8 size allows it.
    node = SMALL.node
    for filler, width in (("a", 1), ("é", 2), ("😀", 4)):
        fits = filler * ((node - 6) // width)
        over = fits + filler
        planner = Planner(SMALL)
        planner.message("user", fits)
        planner.message("user", over)
        assert planner.text((0, 0)) == "user: " + fits
        assert planner.text((0, 1)) is None
        assert planner.size() == (6 + len(fits.encode())) + 29


def test_a_free_leaf_queued_is_logged_when_built_and_read_back(tmp_path: Path) -> None:
    """Under `free_leaves: queued` (SPEC 10) the chat logs a free leaf when
    the queue offers it and it is built (at the end of the call before it,
    AHEAD 1, or within its own message), and a reopened chat folds it back
    built, with its line."""
    queued = Profile(queues_free_leaves=True)
    constants = replace(SMALL, ahead=1)
    with Chat.open(tmp_path, constants, Clock(), profile=queued) as chat:
        chat.append("user", "x" * (constants.node + 1))
        chat.append("user", "hi")
        assert chat.planner.text((0, 1)) is None
        chat.claim(0, 0)
        chat.put(0, 0, "short")
        assert chat.planner.text((0, 1)) == "user: hi"
        chat.append("user", "yo")  # offered at once: built within its message
        assert chat.planner.text((0, 2)) == "user: yo"
    with Chat.open(tmp_path, constants, Clock(), profile=queued) as chat:
        assert chat.planner.text((0, 1)) == "user: hi"
        assert chat.planner.text((1, 0)) == "short\nuser: hi"  # the free merge above it
        assert chat.planner.text((0, 2)) == "user: yo"
