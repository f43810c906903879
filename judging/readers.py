"""The judging layer's readers of users' files, registered in :data:`READERS`.

Names as dotted strings, seeds inline: see :mod:`relkit.metrics.core.readers`. The
``_read_*`` functions call a reader as its command does (one file; a scale).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relkit.metrics.core.readers import READERS, Reader

QRELS = b"101 0 D006 3\n101 0 D008 0\n101 0 D012 1\n102 0 D001 2\n"
TABLE = b"assessor,topic,doc,grade\nann,101,D006,3\nbob,101,D006,1\nann,102,D001,0\n"


def _read_judgments(path: Path) -> Any:
    from relkit.judging.judgment_files import read_judgment_files

    return read_judgment_files([path])


def _read_labels(path: Path) -> Any:
    from relkit.judging.crowd.files import read_labels

    return read_labels([path])


def _read_keymap(path: Path) -> Any:
    from relkit.corpora.types import TREC_DL
    from relkit.judging.tui.keymap import load

    return load(path, TREC_DL)


READERS.register(
    Reader("qrels-judgments", ("judgments",),
           "relkit.judging.judgment_files:read_judgment_files", QRELS, "ann.qrels",
           call="relkit.judging.readers:_read_judgments"),
    Reader("table-judgments", ("judgments",),
           "relkit.judging.judgment_files:read_judgment_files", TABLE, "long.csv",
           call="relkit.judging.readers:_read_judgments"),
    Reader("crowd-labels", ("crowd labels",), "relkit.judging.crowd.files:read_labels",
           b"worker,topic,doc,grade\nw1,101,D006,1\nw2,101,D006,0\nw1,101,D008,1\n",
           "labels.csv", call="relkit.judging.readers:_read_labels"),
    Reader("gold-qrels", ("qrels",), "relkit.judging.crowd.files:read_gold_qrels", QRELS,
           "gold.qrels"),
    Reader("keymap", ("keymap",), "relkit.judging.tui.keymap:load",
           b'[keys]\nflag = "f"\nskip = "s"\n', "keys.toml",
           call="relkit.judging.readers:_read_keymap"),
    Reader("tui-prefs", ("preferences",), "relkit.judging.tui.prefs:load",
           b'theme = "textual-dark"\nreading_width = 80\n', "prefs.toml"),
    Reader("prompt-template", ("prompt template",),
           "relkit.judging.autojudge.prompt:Template.read",
           b"Query: {query}\nPassage: {text}\nAnswer with a grade.\n", "prompt.txt"),
)
