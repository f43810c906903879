"""Typer's parameter coercion without pydantic: ``relkit eval``'s start-up.

Typer 0.2x converts every command-line value through a pydantic ``TypeAdapter``, and
importing pydantic costs more than evaluating a TREC-sized run. This module swaps in a
converter for the unambiguous cases (see :func:`_plain_typer_coercion`); the CLI
(:mod:`relkit.metrics.eval.cli`) installs it when it is imported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args, get_origin

from relkit.metrics.core.borrowed import give_up, missing

_INT = re.compile(r"-?[0-9]+")
WORKAROUND = "converting plain values without pydantic (a faster `relkit eval` start)"
_DEFER = object()


def _leaf(annotation: Any) -> Any:
    """``X`` of ``X`` or ``list[X]``."""
    args = get_args(annotation)
    return args[0] if get_origin(annotation) is list and len(args) == 1 else annotation


def _plain_typer_coercion() -> None:
    """Let typer convert plain ``str``/``int``/``Path``/``bool`` values without pydantic.

    Typer 0.2x builds a pydantic ``TypeAdapter`` for every parameter it processes
    (even an absent ``--help``), and importing pydantic (~0.1 s) costs more than
    evaluating a TREC-sized run. This replaces the builder typer looks up,
    ``typer.core.build_runtime_param``, with one that converts a value whose
    conversion is unambiguous (a ``str``, a decimal integer, a path; an absent
    value) exactly as typer does, and hands anything else to typer's own
    coercion, so typer's results and error messages do not change (a test
    compares both). It applies to the whole process, which is the ``relkit eval``
    command (the CLI root builds its Typer objects before this module is
    imported, so it cannot be done per command). A Typer whose private names moved
    (``typer._coercion``, ``typer._param_types``) is left alone with one warning
    (:mod:`relkit.metrics.core.borrowed`).
    """
    import typer.core as core

    full: Any = getattr(core, "build_runtime_param", None)
    if getattr(full, "relkit_plain", False):
        return
    try:
        from typer._coercion import RuntimeParam
        from typer._param_types import coerce_cli_path
    except ImportError as exc:   # moved or gone: typer's own (pydantic) coercion
        give_up("typer", f"{exc.name or 'typer._coercion'}", WORKAROUND)
        return
    if full is None or missing(RuntimeParam, "_coerce_value") is not None:
        give_up("typer", "typer.core.build_runtime_param or RuntimeParam._coerce_value",
                WORKAROUND)
        return

    class Plain(RuntimeParam):
        # typer's frozen dataclass, plus the descriptor (set in build(); not a
        # dataclass itself: generating one costs ~1 ms at start-up)
        descriptor: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if isinstance(value, (list, tuple)) and self.descriptor.is_list:
                out = [self._one(v, param, ctx) for v in value]
                if all(x is not _DEFER for x in out):
                    return out                 # typer's list adapter returns a list
            else:
                one = self._one(value, param, ctx)
                if one is not _DEFER:
                    return one
            return full(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            leaf = _leaf(self.annotation)
            if leaf is str and type(value) is str:
                return value
            if leaf is int and type(value) is int:
                return value
            if leaf is int and type(value) is str and _INT.fullmatch(value):
                return int(value)
            if leaf is Path and type(value) is str and value:
                # what typer's path adapter does, given the Path pydantic would build
                return coerce_cli_path(Path(value), self.parameter_info, path_type=Path,
                                       param=param, ctx=ctx)
            return _DEFER

    def build(descriptor: Any) -> Any:
        info = descriptor.parameter_info
        plain = (descriptor.file_annotation is None and info.parser is None
                 and not descriptor.is_tuple and not descriptor.is_ranged
                 and getattr(info, "path_type", None) in (None, Path)
                 and _leaf(descriptor.annotation) in (str, int, Path, bool)
                 and (not descriptor.is_list or _leaf(descriptor.annotation) is not bool))
        if not plain:
            return full(descriptor)
        param = Plain(parameter_info=info, annotation=descriptor.annotation)
        object.__setattr__(param, "descriptor", descriptor)
        return param

    build.relkit_plain = True  # type: ignore[attr-defined]
    build.full = full  # type: ignore[attr-defined]  # typer's own, for the tests
    core.build_runtime_param = build
