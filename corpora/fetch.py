"""Downloading known collections into the cache, checked, falling through their sources.

The transfer itself is pooch's (imported only when something is downloaded): it streams
each file to a temporary file beside its target, checks its SHA-256 (or the MD5, where
only that is published) and only then moves it into place, retrying a failed transfer.
So the cache never holds half a file or a wrong one; a file already present with the
right checksum is not downloaded again, so an interrupted fetch resumes file by file.

A collection's sources are tried in the registry's order (a mirror given with
``--url-base`` instead of them); the first from which every file arrives intact wins,
and if none does the error names every source tried and why it failed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from relkit.corpora.known import KnownCollection, RemoteFile, collection_dir, get_known
from relkit.metrics.core.errors import RelkitError

CHUNK = 1 << 16
# progress(label, bytes done, bytes expected or None)
Progress = Callable[[str, int, int | None], None]
# Transfers retried after a failure (connection, HTTP error, checksum), pooch's
# retry_if_failed: it waits 1 s, then 2 s... between attempts.
RETRIES = 2


class FetchError(RelkitError):
    """A download failed, or what arrived is not the file the registry describes."""


def _digests(path: Path) -> tuple[str, str]:
    sha, md5 = hashlib.sha256(), hashlib.md5()
    with open(path, "rb") as fp:
        for block in iter(lambda: fp.read(1 << 20), b""):
            sha.update(block)
            md5.update(block)
    return sha.hexdigest(), md5.hexdigest()


def _matches(f: RemoteFile, size: int, sha: str, md5: str) -> str | None:
    """Why the bytes are not ``f`` (None when they are)."""
    if f.size is not None and size != f.size:
        return f"expected {f.size:,} bytes; got {size:,}"
    if f.sha256 is not None and sha != f.sha256:
        return f"expected SHA-256 {f.sha256}; got {sha}"
    if f.sha256 is None and f.md5 is not None and md5 != f.md5:
        return f"expected MD5 {f.md5}; got {md5}"
    return None


def _known_hash(f: RemoteFile) -> str | None:
    """``f``'s checksum as pooch spells it (None: not checked, ``--unverified``)."""
    if f.sha256 is not None:
        return f"sha256:{f.sha256}"
    return f"md5:{f.md5}" if f.md5 is not None else None


class _Bar:
    """pooch's progress-bar protocol (``total``, ``update``, ``reset``, ``close``) on ours."""

    def __init__(self, label: str, progress: Progress, size: int | None) -> None:
        self.label, self.progress, self.total, self.done = label, progress, size, 0

    def update(self, n: int) -> None:
        self.done += n
        total = self.total or None
        # pooch counts whole chunks: the last one overshoots the length
        self.progress(self.label, min(self.done, total) if total else self.done, total)

    def reset(self) -> None:
        self.done = 0

    def close(self) -> None:
        pass


def download(url: str, target: Path, f: RemoteFile, progress: Progress | None = None,
             timeout: float = 60.0, retries: int | None = None) -> str:
    """Download ``url`` to ``target`` if it is ``f`` (pooch, checked); return its SHA-256."""
    # Deferred: pooch brings requests, which only a download needs.
    import pooch
    import requests

    # pooch says each download and retry at INFO on stderr (its own logger, not in
    # logging's tree); relkit says its own lines.
    pooch.get_logger().setLevel(logging.WARNING)
    target.parent.mkdir(parents=True, exist_ok=True)
    bar = _Bar(f.path, progress, f.size) if progress else False
    downloader = pooch.HTTPDownloader(progressbar=bar, timeout=timeout, chunk_size=CHUNK,
                                      headers={"User-Agent": "relkit"})
    # One file per Pooch: its registry holds the checksum, its urls the address.
    fetcher = pooch.create(path=target.parent, base_url="", registry={target.name:
                           _known_hash(f)}, urls={target.name: url},
                           retry_if_failed=RETRIES if retries is None else retries)
    try:
        fetcher.fetch(target.name, downloader=downloader)
    except requests.HTTPError as exc:
        r: Any = exc.response
        raise FetchError(f"{url}: download failed (HTTP {r.status_code} {r.reason})") from None
    except requests.RequestException as exc:
        raise FetchError(f"{url}: download failed ({_reason(exc)})") from None
    except ValueError as exc:                     # pooch: the checksum does not match
        got = re.search(r"but got ([0-9a-f]+)", str(exc))
        want = f"SHA-256 {f.sha256}" if f.sha256 else f"MD5 {f.md5}"
        raise FetchError(f"{url}: checksum mismatch for {f.path}: expected {want}; got "
                         f"{got.group(1) if got else str(exc)}; the download was deleted (a "
                         "corrupt or changed upstream file, or a wrong mirror)") from None
    except OSError as exc:
        raise FetchError(f"{url}: download failed ({exc.strerror or exc})") from None
    return _digests(target)[0]


def _reason(exc: Exception) -> str:
    """A requests error's cause in a few words (``Connection refused``, not a repr chain)."""
    inner: Any = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else exc
    text = str(getattr(inner, "reason", inner))     # urllib3's MaxRetryError: its cause
    errno = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", text)
    if errno:
        return errno.group(1).strip()
    return "timed out" if "timed out" in text.lower() else text


def _extract(archive: Path, root: Path) -> list[str]:
    """Unpack ``archive`` into ``root`` (tarfile's "data" filter: no links out, no devices)."""
    tmp = root / f".extract{os.getpid()}"
    try:
        with tarfile.open(archive, "r:*") as tar:
            tar.extractall(tmp, filter="data")
        names = []
        for member in sorted(tmp.rglob("*")):
            if member.is_file():
                rel = member.relative_to(tmp)
                dest = root / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(member, dest)
                names.append(str(rel))
        return names
    except (tarfile.TarError, OSError) as exc:
        raise FetchError(f"{archive}: cannot unpack ({exc})") from None
    finally:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


def fetch(name: str, *, dest: Path | None = None, url_base: str | None = None,
          source: str | None = None, unverified: bool = False,
          progress: Progress | None = None, say: Callable[[str], None] | None = None,
          retries: int | None = None) -> Path:
    """Download known collection ``name`` into ``dest`` (default: the cache); return it.

    The collection's sources are tried in order until one delivers every file intact
    (``source`` names just one). ``url_base`` replaces them by one mirror: each file
    of the (first or named) source from ``URL_BASE/<file's path>`` (a local server in
    tests). Files without a known checksum are refused unless ``unverified``; a
    source made of them is skipped when another is checked. ``retries``: transfers
    retried after a failure (default :data:`RETRIES`). A shipped collection needs
    nothing: its folder is returned.
    """
    kc = get_known(name)
    if kc.shipped is not None:
        if say:
            say(f"{name} is shipped with relkit: nothing to download")
        return kc.shipped
    root = dest or collection_dir(name)
    names = [source] if source is not None else list(kc.sources)
    for s in names:
        _source(kc, s)                                  # an unknown --source: say so now
    if url_base:
        names = names[:1]
    if not unverified:
        checked = [s for s in names if all(f.verifiable for f in kc.sources[s])]
        if not checked:
            todo = [f for f in kc.sources[names[0]] if not f.verifiable]
            raise FetchError(f"{name}: no checksum is known for "
                             f"{', '.join(f.path for f in todo)} ({todo[0].note}); rerun with "
                             "--unverified to download it anyway")
        names = checked
    failures: list[str] = []
    for s in names:
        where = f"mirror {url_base}" if url_base else f"source {s!r}"
        try:
            record = _fetch_source(kc, s, root, url_base, progress, say, retries)
        except FetchError as exc:
            failures.append(f"{where}: {exc}")
            if say and s != names[-1]:
                say(f"{name}: {where} failed ({exc}); trying the next source")
            continue
        _write_json(root / "collection.json", dict(kc.manifest))
        _write_json(root / "FETCHED.json", {"collection": name, "source": s,
                                            **({"url_base": url_base} if url_base else {}),
                                            "files": record})
        return root
    if url_base:
        hint = (f"check the mirror, or leave out --url-base to try the known source"
                f"{'s' if len(kc.sources) > 1 else ''} ({', '.join(kc.sources)})")
    else:
        hint = ("try again later, or download from a mirror with --url-base URL (each file "
                "from URL/FILE)")
    tried = "every source failed" if len(failures) > 1 else "the download failed"
    raise FetchError(f"{name}: {tried}: {'; '.join(failures)}; {hint}")


def _fetch_source(kc: KnownCollection, source: str, root: Path, url_base: str | None,
                  progress: Progress | None, say: Callable[[str], None] | None,
                  retries: int | None) -> dict[str, Any]:
    """Every file of ``source`` into ``root``; what arrived from where (FETCHED.json)."""
    record: dict[str, Any] = {}
    for f in kc.sources[source]:
        target = root / f.path
        url = f"{url_base.rstrip('/')}/{f.path}" if url_base else f.url
        if target.is_file() and f.verifiable and _matches(f, target.stat().st_size,
                                                          *_digests(target)) is None:
            if say:
                say(f"{f.path}: already here, checksum matches")
            sha = _digests(target)[0]
        else:
            sha = download(url, target, f, progress, retries=retries)
            if say:
                say(f"{f.path}: {target.stat().st_size:,} bytes from {url}, "
                    + ("checksum matches" if f.verifiable else f"UNVERIFIED, SHA-256 {sha}"))
        record[f.path] = {"url": url, "sha256": sha, "verified": f.verifiable}
        if f.extract:
            record[f.path]["members"] = _extract(target, root)
    return record


def _source(kc: KnownCollection, source: str) -> tuple[RemoteFile, ...]:
    if source not in kc.sources:
        raise FetchError(f"{kc.name}: no source {source!r}; it has {', '.join(kc.sources)}")
    return kc.sources[source]


def _write_json(path: Path, data: object) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
