"""Copy the README's screenshots from the TUI snapshot tests to docs/img/.

    pytest tests/test_tui_snapshots.py --snapshot-update   # first, when a screen changed
    python docs/export_screens.py

The screenshots are the SVGs pytest-textual-snapshot keeps for
tests/test_tui_snapshots.py, so what the README shows is what the tests check;
tests/test_tui_snapshots.py::test_readme_images_are_the_snapshots fails when a copy
here is stale.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "__snapshots__" / "test_tui_snapshots"
IMG = ROOT / "docs" / "img"

# docs/img name <- snapshot file
SCREENS = {
    "judge-80x24-dark.svg": "test_readme_judge_screen[80x24-dark].svg",
    "judge-80x24-light.svg": "test_readme_judge_screen[80x24-light].svg",
    "judge-100x30-dark.svg": "test_readme_judge_screen[100x30-dark].svg",
    "judge-100x30-light.svg": "test_readme_judge_screen[100x30-light].svg",
    "judge-120x40-dark.svg": "test_readme_judge_screen[120x40-dark].svg",
    "judge-120x40-light.svg": "test_readme_judge_screen[120x40-light].svg",
    "find-80x24.svg": "test_readme_find_in_document[80x24].svg",
    "topics-80x24.svg": "test_screens[keys0-topics].svg",
    "help-80x24.svg": "test_screens[keys2-help].svg",
}


def stale() -> list[str]:
    """The docs/img files that are missing or differ from their snapshot."""
    return [name for name, snap in SCREENS.items()
            if not (IMG / name).is_file()
            or (IMG / name).read_bytes() != (SNAPSHOTS / snap).read_bytes()]


def main() -> int:
    IMG.mkdir(exist_ok=True)
    for name, snap in SCREENS.items():
        shutil.copyfile(SNAPSHOTS / snap, IMG / name)
        print(f"docs/img/{name} <- {snap}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
