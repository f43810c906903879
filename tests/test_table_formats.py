"""The shared table formats (relkit.metrics.core.tables): the ones `relkit compare` offers
(markdown, latex, csv, json, rich) plus tsv, for every command that writes one table."""

from __future__ import annotations

import io

from relkit.metrics.core.tables import TABLE_FORMATS


def render(fmt: str, header: list[str], rows: list[list[object]]) -> str:
    out = io.StringIO()
    TABLE_FORMATS.lookup(fmt).write(header, rows, out, "")  # type: ignore[arg-type]
    return out.getvalue()


def test_compare_formats_are_all_offered() -> None:
    from relkit.metrics.compare.formats import FORMATS

    assert set(FORMATS.names()) <= set(TABLE_FORMATS.names())


def test_latex_escapes_every_special_character() -> None:
    text = render("latex", ["metric_name", "p"], [["a_b&c%$#{}~^\\", 0.25], ["ctr@1", None]])
    lines = text.splitlines()
    assert lines[0] == r"\begin{tabular}{ll}" and lines[-1] == r"\end{tabular}"
    assert r"metric\_name & p \\" in lines
    assert (r"a\_b\&c\%\$\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{} & "
            r"0.2500 \\") in lines
    assert r"ctr@1 &  \\" in lines


def test_rich_draws_every_cell_on_one_line_each() -> None:
    long = "x" * 150
    text = render("rich", ["metric", "value"], [[long, 1.0], ["ctr@1", None]])
    assert any(long in line for line in text.splitlines())  # never wrapped
    assert "metric" in text and "1.0000" in text and "ctr@1" in text
    assert "\x1b[" not in text   # not a terminal: no colour codes
