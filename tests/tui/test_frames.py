"""A key on the debugger's main screen costs the screen one frame: the panes
redraw without a layout pass, and the row pane lays out again only when the
row is taller than the pane (or the last one was), so it always holds the
whole row."""

from __future__ import annotations

import asyncio

from hale_runtime.tui.app import DebugApp
from hale_runtime.tui.model import DebugModel
from hale_runtime.tui.widgets import Detail

SIZE = (80, 20)  # a short pane: rows both shorter and taller than it


def framed(app: DebugApp) -> list[object]:
    """Each frame the app hands its terminal, noted (headless: not written)."""
    frames: list[object] = []
    display = app._display

    def noted(screen, renderable) -> None:
        display(screen, renderable)
        if renderable is not None:
            frames.append(renderable)

    app._display = noted
    return frames


def test_each_key_makes_one_frame_and_the_row_pane_holds_the_whole_row(rows):
    async def run() -> None:
        app = DebugApp(DebugModel(rows))
        frames = framed(app)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("home")
            detail = app.screen.query_one(Detail)
            pane = detail.parent.content_size
            # the frames of each key that left the row pane's height as it was
            heights, kept = set(), []
            for key in ["j"] * 12 + ["k"] * 6 + ["end", "home"]:
                before = detail.size.height
                frames.clear()
                await pilot.press(key)
                width = detail.content_size.width
                whole = detail.get_content_height(pane, pane, width)
                assert detail.size.height == max(whole, pane.height), key
                if before == detail.size.height:
                    kept.append(len(frames))
                heights.add(whole)
            assert max(kept) == 1 and kept.count(1) >= 12, kept
            assert min(heights) < pane.height < max(heights)  # rows both sides of the pane

    asyncio.run(run())
