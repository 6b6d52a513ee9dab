"""Screens: pixels where the layout promises them, dice with the right pips, terminal text."""

from __future__ import annotations

import pytest
from PIL import Image

from box.games.base import View
from box.screens.render import (
    HEIGHT,
    ROLL_FRAMES,
    TITLE_BAR,
    TITLE_HEIGHT,
    WIDTH,
    marquee_start,
    next_scroll,
    render,
    render_dice_frame,
    render_progress,
    to_text,
)

ROW = 9  # the height of a text row under the title bar


def band(image, top, bottom, left=0, right=WIDTH):
    """The lit pixels of rows [top, bottom) and columns [left, right)."""
    return {(x, y) for y in range(top, bottom) for x in range(left, right) if image.getpixel((x, y))}


def row_band(image, row):
    top = TITLE_HEIGHT + row * ROW
    return band(image, top, top + ROW)


def row_is_inverted(image, row):
    """An inverted row is lit from edge to edge (the text is cut out of it)."""
    top = TITLE_HEIGHT + row * ROW
    return all(image.getpixel((x, y)) for y in range(top, top + ROW) for x in (0, WIDTH - 1))


def components(pixels):
    """The number of groups of touching pixels (diagonals too: a rounded outline is one group)."""
    unseen, count = set(pixels), 0
    while unseen:
        count += 1
        stack = [unseen.pop()]
        while stack:
            x, y = stack.pop()
            for neighbour in ((x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
                if neighbour in unseen:
                    unseen.remove(neighbour)
                    stack.append(neighbour)
    return count


def pips(image, half, top=TITLE_HEIGHT, bottom=HEIGHT):
    """Pips of the die in the left (0) or right (1) half: the groups of lit pixels but the outline."""
    return components(band(image, top, bottom, left=half * WIDTH // 2, right=(half + 1) * WIDTH // 2)) - 1


def test_the_image_is_a_128_by_64_one_bit_image():
    image = render(View(title="Menu"))
    assert (image.size, image.mode) == ((WIDTH, HEIGHT), "1")


def test_the_title_bar_is_inverted_with_the_title_cut_out():
    image = render(View(title="Deadlines"))
    bar = band(image, 0, TITLE_BAR)
    assert all((x, y) in bar for y in range(TITLE_BAR) for x in (0, WIDTH - 1))
    assert 0 < TITLE_BAR * WIDTH - len(bar) < 400  # dark letters in a lit bar
    assert band(image, TITLE_BAR, HEIGHT) == set()
    assert render(View(title="Dead Set")) != image


def test_lines_fill_rows_from_the_top():
    image = render(View(title="t", lines=("Ada", "Bob")))
    assert row_band(image, 0) and row_band(image, 1)
    assert all(not row_band(image, row) for row in range(2, 6))
    assert not row_is_inverted(image, 0)


def test_the_cursor_line_is_inverted():
    image = render(View(title="t", lines=("Ada", "Bob", "Cleo"), cursor=1))
    assert [row_is_inverted(image, row) for row in range(6)] == [False, True, False, False, False, False]
    inverted = row_band(image, 1)
    assert len(inverted) < WIDTH * ROW  # the text shows as dark pixels


def test_a_dark_row_parts_the_title_bar_from_a_highlighted_first_line():
    image = render(View(title="Menu", lines=("Deadlines", "Dead Set"), cursor=0))
    assert row_is_inverted(image, 0)
    assert band(image, TITLE_BAR, TITLE_HEIGHT) == set()
    assert band(image, TITLE_BAR - 1, TITLE_BAR) and band(image, TITLE_HEIGHT, TITLE_HEIGHT + 1)


def test_a_long_selected_line_scrolls_and_says_when_it_next_moves():
    long = "Life span: Wolfgang Amadeus Mozart"
    view = View(title="t", lines=("Ada", long), cursor=1)
    still = render(view, elapsed=0.0)
    assert render(view, elapsed=0.5) == still  # it rests at its start first
    wait = next_scroll(view, 0.5)
    assert wait is not None and wait > 0
    moved = render(view, elapsed=0.5 + wait)
    assert moved != still and row_band(moved, 0) == row_band(still, 0)
    assert moved == render(View(title="t", lines=("Ada", long[1:]), cursor=1))
    end = render(view, elapsed=5.0)
    assert end == render(View(title="t", lines=("Ada", long[marquee_start(long, 5.0) :]), cursor=1))
    assert marquee_start(long, 5.0) == len(long) - 21  # its last character in the row's last place
    unselected = View(title="t", lines=(long,))
    assert render(unselected, elapsed=3.0) == render(unselected) and next_scroll(unselected, 0.0) is None


def test_a_big_number_is_drawn_large_above_the_lines():
    image = render(View(title="Countdown", lines=("OK: again",), big="23"))
    lit = band(image, TITLE_HEIGHT, TITLE_HEIGHT + 4 * ROW)
    assert max(y for _, y in lit) - min(y for _, y in lit) >= 25  # digits 25+ pixels tall
    assert render(View(title="Countdown", big="24")) != render(View(title="Countdown", big="23"))
    assert row_band(image, 4) and not row_band(image, 5)  # the lines go under it
    assert band(render(View(title="Countdown", big="TIME!")), TITLE_HEIGHT, HEIGHT)  # a word fits too


def test_at_most_five_lines_show():
    image = render(View(title="t", lines=tuple("ABCDEFG")))
    assert [bool(row_band(image, row)) for row in range(6)] == [True] * 5 + [False]


def test_a_title_of_21_characters_shows_whole():
    whole = render(View(title="Ditch which evidence?"))
    assert whole != render(View(title="Ditch which evidence"))  # its question mark is drawn
    assert whole == render(View(title="Ditch which evidence?!"))  # the 22nd is not


def test_a_long_line_is_cut_to_fit():
    long = render(View(title="t", lines=("W" * 40,)))
    assert long == render(View(title="t", lines=("W" * 21,)))
    assert long != render(View(title="t", lines=("W" * 20,)))
    assert max(x for x, _ in row_band(long, 0)) < WIDTH


def test_the_notice_sits_on_the_bottom_row():
    image = render(View(title="t", lines=("Ada",), notice="Wrong!"))
    assert row_band(image, 5)
    assert not any(row_band(image, row) for row in range(1, 5))


def test_a_long_notice_wraps_over_two_rows_the_lines_leave_free():
    image = render(View(title="t", lines=tuple("ABC"), notice="Ada died before Bob was born, sorry"))
    assert row_band(image, 4) and row_band(image, 5) and not row_band(image, 3)
    assert next_scroll(View(title="t", lines=tuple("ABC"), notice="Ada died before Bob was born, sorry"), 0.0) is None


def test_under_five_lines_a_long_notice_takes_one_row_and_scrolls_through_it():
    notice = "Ada died before Bob was born, sorry"
    view = View(title="t", lines=tuple("ABCDE"), cursor=4, notice=notice)
    image = render(view)
    assert all(row_band(image, row) for row in range(6))  # every line shows: the hint on the last one too
    assert [row_is_inverted(image, row) for row in range(5)] == [False, False, False, False, True]
    wait = next_scroll(view, 0.0)
    assert wait == 1.0
    moved = render(view, elapsed=wait)
    assert [row_band(moved, row) == row_band(image, row) for row in range(6)] == [True] * 5 + [False]
    assert moved == render(View(title="t", lines=tuple("ABCDE"), cursor=4, notice=notice[1:]))


def test_the_lines_marked_scrolling_scroll_selected_or_not():
    long = "Items on Wolfgang Amadeus Mozart"
    view = View(title="t", lines=(long, "Whack"), cursor=1, scrolling=(0,))
    assert render(view, elapsed=1.0) == render(View(title="t", lines=(long[1:], "Whack"), cursor=1))
    assert render(View(title="t", lines=(long, "Whack"), cursor=1), elapsed=1.0) == render(view)  # unmarked: still


def test_greek_cyrillic_and_accented_latin_are_drawn_as_written_and_other_scripts_plain():
    written = render(View(title="Erdős", lines=("Zoë → Ann", "Дмитрий Νίκος Łucja")))
    assert written != render(View(title="Erdos", lines=("Zoe → Ann", "Dmitrij Nikos Lucja")))
    decomposed = "Erdo\u030bs"  # o and a combining double acute: composed before it is drawn
    assert written == render(View(title=decomposed, lines=("Zoë → Ann", "Дмитрий Νίκος Łucja")))
    assert render(View(title="Ǹ 李 Ann")) == render(View(title="N ? Ann"))  # not in the font: plain, or "?"


@pytest.mark.parametrize(("a", "b"), [(1, 6), (2, 5), (3, 4), (4, 3), (5, 2), (6, 1)])
def test_dice_show_their_pips(a, b):
    image = render(View(title="Roll", lines=("hidden",), dice=(a, b)))
    assert (pips(image, 0), pips(image, 1)) == (a, b)


def test_dice_leave_room_for_the_notice():
    image = render(View(title="Roll", dice=(6, 6), notice="Ada drinks"))
    notice_top = HEIGHT - ROW
    assert (pips(image, 0, bottom=notice_top), pips(image, 1, bottom=notice_top)) == (6, 6)
    assert row_band(image, 5)


def test_a_die_shows_only_one_to_six():
    with pytest.raises(ValueError, match="1 to 6"):
        render(View(title="Roll", dice=(0, 7)))


def test_the_roll_animation_tumbles_below_the_title():
    frames = [render_dice_frame(6, 3, phase, title="Rolling") for phase in range(ROLL_FRAMES)]
    assert len({frame.tobytes() for frame in frames}) == ROLL_FRAMES
    title = band(frames[0], 0, TITLE_HEIGHT)
    assert all(band(frame, 0, TITLE_HEIGHT) == title for frame in frames)
    assert all(band(frame, TITLE_HEIGHT, HEIGHT, right=WIDTH // 2) for frame in frames)
    assert all(band(frame, TITLE_HEIGHT, HEIGHT, left=WIDTH // 2) for frame in frames)
    assert (pips(frames[0], 0), pips(frames[0], 1)) == (6, 3)
    assert render_dice_frame(6, 3, ROLL_FRAMES, title="Rolling") == frames[0]


def test_progress_bar_grows_with_the_count():
    bar_rows = (TITLE_HEIGHT + 3, TITLE_HEIGHT + 8)
    lit = [len(band(render_progress("Enrol", done, 10), *bar_rows, right=80)) for done in (0, 3, 7, 10)]
    assert lit == sorted(lit) and lit[0] < lit[1] < lit[2] < lit[3]
    assert render_progress("Enrol", 3, 10) != render_progress("Enrol", 4, 10)


def test_progress_shows_the_lines_below_the_bar():
    image = render_progress("Enrol", 1, 3, ("Tap: Ada", "then Bob"))
    assert row_band(image, 1) and row_band(image, 2)
    assert not row_band(image, 3)


def test_to_text_is_128_by_32_characters():
    rows = to_text(render(View(title="t", lines=("Ada",)))).split("\n")
    assert len(rows) == HEIGHT // 2
    assert all(len(row) == WIDTH for row in rows)
    assert set(rows[0]) <= {"█", "▀", "▄", " "}


def test_to_text_puts_two_pixel_rows_in_one_character():
    image = Image.new("1", (4, 4), 0)
    for xy in [(0, 0), (1, 1), (2, 0), (2, 1), (3, 3)]:
        image.putpixel(xy, 1)
    assert to_text(image) == "▀▄█ \n   ▄"


def test_the_loop_scrolls_a_long_selected_line_on_the_panel_and_stops_when_the_screen_dims(tmp_path):
    from box.sim.world import SimulatedBox
    from box.storage.roster import ROSTER_FILE, Roster, save_roster

    names = ["Annabelle", "Bartholomew", "Cornelius"]
    save_roster(Roster.checked(names, {}), tmp_path / ROSTER_FILE)
    world = SimulatedBox(state_dir=tmp_path)
    try:
        for button in ("down", "ok", "up", "ok", "down"):  # Dead Set, 3 players, the setup's Names line
            world.press(button)
        assert world.box.screen(world.now).lines[1] == "Names: " + ", ".join(names)
        first = world.parts.display.image.copy()
        world.advance(0.5)
        assert world.parts.display.image == first  # it rests at its start
        world.advance(1.0)
        assert world.parts.display.image != first  # then moves along
        renders = world.loop.renders
        world.advance(1000.0)  # long enough to dim the screen: the line rests at its start
        assert world.dump()["display"]["dimmed"] is True
        settled = world.loop.renders
        world.advance(30.0)
        assert world.loop.renders == settled > renders  # no more frames while it is dimmed
    finally:
        world.close()
