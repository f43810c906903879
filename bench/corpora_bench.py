"""Index Vaswani (11,429 docs) into the DocStore, then fetch 1,000 random documents by id.

    .venv/bin/python bench/corpora_bench.py [--docs PATH] [--n 1000]

Peers: a naive full scan of the source per lookup (what a reader without an
index must do), timed on 20 lookups and scaled; and ir_datasets' own docstore
(lz4-compressed pickles with an offset index) built over the *same local file*
through a dataset registered from it, when ir_datasets is installed (never its
download of vaswani: no network here) -- otherwise skipped with the reason.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

from relkit.corpora.docstore import DocStore
from relkit.corpora.loaders import read_docs

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "corpora" / "vaswani" / "corpus" / "doc-text.trec"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=Path, default=DEFAULT)
    ap.add_argument("--n", type=int, default=1000)
    args = ap.parse_args()
    if not args.docs.is_file():
        raise SystemExit(f"no documents at {args.docs}")
    os.environ["RELKIT_CACHE"] = tempfile.mkdtemp(prefix="relkit-bench-")

    t0 = time.perf_counter()
    n_docs = sum(1 for _ in read_docs(args.docs))
    parse = time.perf_counter() - t0

    t0 = time.perf_counter()
    store = DocStore.open(args.docs)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    DocStore.open(args.docs)
    reopen = time.perf_counter() - t0

    rng = random.Random(0)
    every = store.ids()
    ids = [rng.choice(every) for _ in range(args.n)]
    t0 = time.perf_counter()
    got = [store.get(i) for i in ids]
    fetch = time.perf_counter() - t0
    assert all(d is not None for d in got)

    scan_n = 20
    t0 = time.perf_counter()
    for i in ids[:scan_n]:
        next(d for d in read_docs(args.docs) if d.id == i)
    scan = (time.perf_counter() - t0) / scan_n * args.n

    print(f"documents                     {n_docs:,} ({args.docs.stat().st_size:,} bytes)")
    print(f"parse only (stream)           {parse:8.3f} s")
    print(f"index into DocStore (once)    {build:8.3f} s")
    print(f"reopen cached store           {reopen * 1e3:8.2f} ms")
    print(f"{args.n:,} random gets           {fetch * 1e3:8.2f} ms "
          f"({fetch / args.n * 1e6:.1f} us each)")
    print(f"naive full scan per get       {scan:8.2f} s for {args.n:,} "
          f"(estimated from {scan_n}); ratio scan/DocStore = {scan / fetch:,.0f}x")
    try:
        import ir_datasets
        from ir_datasets.datasets.base import Dataset
        from ir_datasets.formats import TrecDocs
        from ir_datasets.util import LocalDownload
    except ImportError:
        print("ir_datasets docstore          skipped (not installed: pip install 'relkit[irds]')")
        return
    os.environ["IR_DATASETS_HOME"] = os.environ["RELKIT_CACHE"]
    ir_datasets.registry.register("relkit-bench/local", Dataset(
        TrecDocs(LocalDownload(args.docs), parser="text",
                 docstore_path=os.path.join(os.environ["RELKIT_CACHE"], "irds.docstore"))))
    t0 = time.perf_counter()
    irds_store = ir_datasets.load("relkit-bench/local").docs_store()
    irds_store.get(ids[0])  # its index is built lazily, on first use
    irds_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i in ids:
        irds_store.get(i)
    irds = time.perf_counter() - t0
    print(f"ir_datasets docstore build    {irds_build:8.3f} s; ratio irds/DocStore = "
          f"{irds_build / build:.2f}x")
    print(f"ir_datasets {args.n:,} gets        {irds * 1e3:8.2f} ms; ratio irds/DocStore = "
          f"{irds / fetch:.2f}x")


if __name__ == "__main__":
    main()
