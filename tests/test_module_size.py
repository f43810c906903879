"""Every module of the package stays under the style guide's limit of 400 lines.

The style guide (STYLE.md, README's developer section) says one module, one idea, and to
split before a file passes ~400 lines. This walk names each module over the limit, with
its count, so the next one to grow past it fails here rather than in a review.
"""

from __future__ import annotations

from helpers import ROOT

LIMIT = 400
LAYERS = ("metrics", "pooling", "judging", "corpora")

# A module allowed past the limit for a while (none now). Remove a file from here when it
# is under the limit: the second test fails for a file listed here that no longer needs
# to be, so the list cannot go stale.
ALLOWED: set[str] = set()


def _line_counts() -> dict[str, int]:
    counts = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if any(part.startswith(".") or part == "__pycache__" for part in path.parts):
                continue
            with path.open("rb") as handle:
                counts[path.relative_to(ROOT).as_posix()] = sum(1 for _ in handle)
    return counts


def test_no_module_is_over_the_limit() -> None:
    over = {path: n for path, n in _line_counts().items() if n > LIMIT and path not in ALLOWED}
    assert over == {}, f"modules over {LIMIT} lines (split them along an idea): {over}"


def test_the_allow_list_holds_only_files_over_the_limit() -> None:
    counts = _line_counts()
    stale = {path: counts.get(path) for path in ALLOWED if counts.get(path, 0) <= LIMIT}
    assert stale == {}, f"allowed but missing or under {LIMIT} lines: remove them: {stale}"
