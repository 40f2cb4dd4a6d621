"""Submitted archives: checked before anything is written, then unpacked as an immutable version.

A submission is a .zip (``hearts submit`` zips a directory) with ``bot.toml`` at its top (or in
one top folder): ``command`` starts the bot (``{port}`` as in bots.toml), ``build`` is run once
before validation, ``language`` is for people. Refused, with a message that says why: not a zip,
too big as sent, too many files, too big unpacked (declared or actual: a zip bomb), a name with
``..``, an absolute name, a symlink, a device or other special file, no or a bad ``bot.toml``.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import stat
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ladder.arena.config import Limits

__all__ = ["ArchiveError", "Manifest", "check_archive", "stored_bytes", "unpack", "zip_directory"]

MANIFEST = "bot.toml"
_RATIO = 200  # a member compressed more than this is a bomb whatever its declared size


class ArchiveError(ValueError):
    """A submission refused: the message says what is wrong and what to do."""


@dataclass(frozen=True)
class Manifest:
    command: str
    build: str | None = None
    language: str | None = None


@dataclass(frozen=True)
class Checked:
    sha256: str
    size: int
    files: int
    unpacked: int
    root: str  # the folder holding bot.toml inside the archive ("" for the top)
    manifest: Manifest


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return f"{name!r} is an absolute path"
    if ".." in PurePosixPath(name).parts:
        return f"{name!r} leaves the bot's directory (..)"
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return f"{name!r} is a symlink (a bot's files must be plain files in its directory)"
    kind = stat.S_IFMT(mode)  # 0 when the archiver set no file type (Python's writestr, say)
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        return f"{name!r} is not a plain file"
    return None


def parse_manifest(text: str) -> Manifest:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ArchiveError(f"{MANIFEST} is not valid TOML: {e}") from None
    unknown = set(data) - {"command", "build", "language"}
    if unknown:
        raise ArchiveError(f"{MANIFEST}: unknown key(s) {', '.join(sorted(unknown))} (known: command, build, language)")
    command = data.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ArchiveError(f'{MANIFEST}: command = "..." is required: the command that starts the bot, with {{port}}')
    for key in ("build", "language"):
        if key in data and not isinstance(data[key], str):
            raise ArchiveError(f"{MANIFEST}: {key} must be a string")
    return Manifest(command=command, build=data.get("build"), language=data.get("language"))


def check_archive(data: bytes, limits: Limits) -> Checked:
    """Check a submitted archive without unpacking it; ``ArchiveError`` says what is refused."""
    if len(data) > limits.max_archive_bytes:
        raise ArchiveError(f"the archive is {len(data)} bytes; this arena takes at most {limits.max_archive_bytes}")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ArchiveError("not a zip archive: send a .zip, or a directory (hearts submit zips it)") from None
    files = [i for i in infos if not i.is_dir()]
    if len(files) > limits.max_files:
        raise ArchiveError(f"the archive holds {len(files)} files; this arena takes at most {limits.max_files}")
    total = 0
    for info in infos:
        problem = _member_problem(info)
        if problem is not None:
            raise ArchiveError(f"refused: {problem}")
        total += info.file_size
        if info.compress_size and info.file_size / info.compress_size > _RATIO and info.file_size > 1 << 20:
            raise ArchiveError(f"refused: {info.filename!r} unpacks to {info.file_size} bytes (a zip bomb?)")
    if total > limits.max_unpacked_bytes:
        raise ArchiveError(
            f"the archive unpacks to {total} bytes; this arena takes at most {limits.max_unpacked_bytes}"
        )
    listed = [i.filename for i in files]
    names = set(listed)
    if len(names) < len(listed):  # two members of one name: which one is the bot's?
        twice = sorted({n for n in listed if listed.count(n) > 1})
        raise ArchiveError(f"refused: {', '.join(repr(n) for n in twice[:3])} in the archive more than once")
    tops = {n.split("/", 1)[0] for n in names}
    root = ""
    if MANIFEST not in names and len(tops) == 1 and f"{next(iter(tops))}/{MANIFEST}" in names:
        root = next(iter(tops))
    path = f"{root}/{MANIFEST}" if root else MANIFEST
    if path not in names:
        raise ArchiveError(f"no {MANIFEST} at the top of the archive: it names the command that starts the bot")
    manifest = parse_manifest(zf.read(path).decode("utf-8", "replace"))
    return Checked(hashlib.sha256(data).hexdigest(), len(data), len(files), total, root, manifest)


def unpack(data: bytes, checked: Checked, dest: Path, limits: Limits) -> None:
    """Unpack a checked archive into ``dest`` (new), counting the bytes actually written: a member
    that lies about its size is cut at the limit and the whole version refused."""
    dest.mkdir(parents=True)
    written = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for info in zf.infolist():
                rel = PurePosixPath(info.filename)
                if checked.root:
                    rel = rel.relative_to(checked.root) if rel.parts[0] == checked.root else rel
                if not rel.parts:
                    continue
                target = dest.joinpath(*rel.parts)
                if not target.resolve().is_relative_to(dest.resolve()):
                    raise ArchiveError(f"refused: {info.filename!r} leaves the bot's directory")
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(target, "xb") as out:
                    while chunk := src.read(1 << 16):
                        written += len(chunk)
                        if written > limits.max_unpacked_bytes:
                            raise ArchiveError(
                                f"the archive unpacks to more than {limits.max_unpacked_bytes} bytes (a zip bomb?)"
                            )
                        out.write(chunk)
                # Readable by all (the sandboxed bot runs as a uid of its own, not the arena's), writable
                # by none but the arena: a version is immutable. Only the executable bits are the zip's.
                mode = (info.external_attr >> 16) & 0o777
                target.chmod(0o755 if mode & 0o111 else 0o644)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def stored_bytes(version_dirs: list[Path]) -> int:
    """What versions take on disk: each directory's files (builds included) and its archive beside it."""
    total = 0
    for d in version_dirs:
        for path in (d.with_suffix(".zip"), *d.rglob("*")):
            try:
                st = path.lstat()
            except OSError:  # gone meanwhile, or never kept
                continue
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
    return total


def zip_directory(folder: Path) -> bytes:
    """A directory as a zip, as ``hearts submit`` sends it: plain files only; a symlink that leaves
    the folder is refused here already."""
    root = folder.resolve()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if any(p in ("__pycache__", ".git", "node_modules") for p in rel.parts):
                continue
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                raise ArchiveError(f"{path} is a symlink that leaves {folder}: copy the file in instead")
            if path.is_file():
                zf.write(path, rel.as_posix())
    return buf.getvalue()
