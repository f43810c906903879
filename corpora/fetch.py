"""Downloading known collections into the cache, checked and written atomically.

Each file is streamed into a hidden temporary file beside its target while its
SHA-256 (and MD5, where only that is published) is computed; only a file whose
size and checksum match is renamed into place. Any failure (network error,
mismatch, Ctrl-C) deletes the temporary file, so the cache never holds half a
file or a wrong one. A file already present with the right checksum is not
downloaded again, so an interrupted fetch resumes file by file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tarfile
from collections.abc import Callable
from pathlib import Path

from relkit.corpora.known import KnownCollection, RemoteFile, collection_dir, get_known
from relkit.metrics.core.errors import RelkitError

CHUNK = 1 << 16
# progress(label, bytes done, bytes expected or None)
Progress = Callable[[str, int, int | None], None]


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


def download(url: str, target: Path, f: RemoteFile, progress: Progress | None = None,
             timeout: float = 60.0) -> str:
    """Download ``url`` to ``target`` if it is ``f``; return its SHA-256."""
    import urllib.error
    import urllib.request

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.part{os.getpid()}")
    sha, md5, done = hashlib.sha256(), hashlib.md5(), 0
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "relkit"})
        with urllib.request.urlopen(req, timeout=timeout) as resp, open(tmp, "wb") as out:
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else f.size
            while block := resp.read(CHUNK):
                out.write(block)
                sha.update(block)
                md5.update(block)
                done += len(block)
                if progress:
                    progress(f.path, done, total)
            out.flush()
            os.fsync(out.fileno())
        why = _matches(f, done, sha.hexdigest(), md5.hexdigest())
        if why is not None:
            raise FetchError(f"{url}: checksum mismatch for {f.path}: {why}; the download was "
                             "deleted (a corrupt or changed upstream file, or a wrong mirror)")
        os.replace(tmp, target)
    except urllib.error.HTTPError as exc:
        raise FetchError(f"{url}: download failed (HTTP {exc.code} {exc.reason})") from None
    except (urllib.error.URLError, OSError) as exc:
        raise FetchError(f"{url}: download failed ({getattr(exc, 'reason', exc)})") from None
    finally:
        tmp.unlink(missing_ok=True)
    return sha.hexdigest()


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
          progress: Progress | None = None, say: Callable[[str], None] | None = None) -> Path:
    """Download known collection ``name`` into ``dest`` (default: the cache); return it.

    ``url_base`` replaces each upstream address by ``URL_BASE/<file's path>`` (a mirror,
    or a local server in tests). ``source`` picks one of the collection's sources.
    Files without a known checksum are refused unless ``unverified``.
    """
    kc = get_known(name)
    if kc.shipped is not None:
        if say:
            say(f"{name} is shipped with relkit: nothing to download")
        return kc.shipped
    files = _source(kc, source)
    root = dest or collection_dir(name)
    todo = [f for f in files if not f.verifiable]
    if todo and not unverified:
        raise FetchError(f"{name}: no checksum is known for {', '.join(f.path for f in todo)} "
                         f"({todo[0].note}); rerun with --unverified to download it anyway")
    record = {}
    for f in files:
        target = root / f.path
        url = f"{url_base.rstrip('/')}/{f.path}" if url_base else f.url
        if target.is_file() and f.verifiable and _matches(f, target.stat().st_size,
                                                          *_digests(target)) is None:
            if say:
                say(f"{f.path}: already here, checksum matches")
            sha = _digests(target)[0]
        else:
            sha = download(url, target, f, progress)
            if say:
                say(f"{f.path}: {target.stat().st_size:,} bytes from {url}, "
                    + ("checksum matches" if f.verifiable else f"UNVERIFIED, SHA-256 {sha}"))
        record[f.path] = {"url": url, "sha256": sha, "verified": f.verifiable}
        if f.extract:
            record[f.path]["members"] = _extract(target, root)
    _write_json(root / "collection.json", dict(kc.manifest))
    _write_json(root / "FETCHED.json", {"collection": name, "source": source
                                        or kc.default_source, "files": record})
    return root


def _source(kc: KnownCollection, source: str | None) -> tuple[RemoteFile, ...]:
    if source is None:
        return kc.sources[kc.default_source]
    if source not in kc.sources:
        raise FetchError(f"{kc.name}: no source {source!r}; it has {list(kc.sources)}")
    return kc.sources[source]


def _write_json(path: Path, data: object) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
