"""Bad archives are refused with a clear message, before anything is written (and through the real
API); a good one becomes an immutable version with its hash, size and files; a build that fails or
runs too long keeps its report and the version never plays; the deadline refuses submissions."""

from __future__ import annotations

import io
import os
import stat
import warnings
import zipfile
from pathlib import Path

import pytest
from arena_helpers import GOOD_BOT, HOUSE2, Arena, make_arena, write_bot

from ladder.arena.config import Limits
from ladder.arena.submissions import ArchiveError, check_archive, unpack, zip_directory

pytestmark = pytest.mark.slow  # whole processes and servers

LIMITS = Limits(max_archive_bytes=100_000, max_files=10, max_unpacked_bytes=500_000)
MANIFEST = 'command = "python bot.py --port {port}"\n'


def _zip(members: dict[str, bytes], *, symlinks: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return buf.getvalue()


BAD = {
    "not a zip": (b"this is not a zip at all", "not a zip archive"),
    "too big": (_zip({"bot.toml": MANIFEST.encode(), "x.bin": os.urandom(150_000)}), "at most 100000"),
    "too many files": (_zip({"bot.toml": MANIFEST.encode(), **{f"f{i}": b"" for i in range(12)}}), "at most 10"),
    "traversal": (_zip({"bot.toml": MANIFEST.encode(), "../evil.py": b"x"}), "leaves the bot's directory"),
    "absolute": (_zip({"bot.toml": MANIFEST.encode(), "/etc/evil": b"x"}), "absolute path"),
    "symlink escape": (_zip({"bot.toml": MANIFEST.encode()}, symlinks={"data": "../../etc/passwd"}), "symlink"),
    "zip bomb": (_zip({"bot.toml": MANIFEST.encode(), "bomb": bytes(5_000_000)}), "unpacks to"),
    "no manifest": (_zip({"bot.py": b"x"}), "no bot.toml"),
    "bad manifest": (_zip({"bot.toml": b"build = 'make'\n"}), "command"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_archive_is_refused_with_a_clear_message(case: str) -> None:
    data, message = BAD[case]
    with pytest.raises(ArchiveError, match=message):
        check_archive(data, LIMITS)


def test_a_member_that_lies_about_its_size_is_cut_at_the_limit(tmp_path: Path) -> None:
    data = _zip({"bot.toml": MANIFEST.encode(), "big": bytes(400_000)})
    checked = check_archive(data, LIMITS)
    with pytest.raises(ArchiveError, match="zip bomb"):
        unpack(data, checked, tmp_path / "v", Limits(max_unpacked_bytes=100_000))
    assert not (tmp_path / "v").exists(), "nothing is left of a refused version"


def test_a_directory_zips_to_a_version_and_one_folder_on_top_is_fine(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "mybot", GOOD_BOT)
    checked = check_archive(zip_directory(bot), LIMITS)
    assert checked.manifest.command == "python bot.py --port {port}" and checked.files == 2
    nested = _zip({"mybot/bot.toml": MANIFEST.encode(), "mybot/bot.py": b"print()"})
    c = check_archive(nested, LIMITS)
    unpack(nested, c, tmp_path / "v", LIMITS)
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == ["bot.py", "bot.toml"]
    (bot / "escape").symlink_to("/etc/passwd")
    with pytest.raises(ArchiveError, match="symlink that leaves"):
        zip_directory(bot)


def test_the_api_refuses_bad_archives_and_keeps_good_versions_immutable(
    tmp_path: Path, arena_factory: list[Arena]
) -> None:
    a = make_arena(tmp_path, house=HOUSE2)
    arena_factory.append(a)
    alice = a.add_user("alice")
    a.serve()
    zipped = {"Content-Type": "application/zip"}
    with a.client(alice) as c:
        for case in ("not a zip", "traversal", "symlink escape", "zip bomb"):
            r = c.post("/api/bots/mine/versions", content=BAD[case][0], headers=zipped)
            assert r.status_code == 400 and BAD[case][1] in r.json()["error"], (case, r.text)
        big = _zip({"bot.toml": MANIFEST.encode(), "x": os.urandom(300_000)})
        r = c.post("/api/bots/mine/versions", content=big, headers=zipped)
        assert r.status_code in (400, 413) and "at most 200000" in r.json()["error"]
        assert not (a.dir / "versions" / "mine").exists() or not any(
            p for p in (a.dir / "versions" / "mine").iterdir() if not p.name.startswith(".")
        )
        # A build that fails keeps its report; the version never plays.
        failing = write_bot(tmp_path / "fails", GOOD_BOT, build="echo compiling; exit 4")
        r = c.post("/api/bots/mine/versions", content=zip_directory(failing), headers=zipped)
        assert r.status_code == 201, r.text
        v = r.json()
        assert v["number"] == 1 and v["content_hash"] and v["size"] > 0 and v["files"] == 2
        v = a.wait_for(alice, lambda v: v["status"] in ("valid", "failed"), path="/api/bots/mine/versions/1")
        assert v["status"] == "failed" and v["build_report"]["exit_code"] == 4
        assert "compiling" in v["build_report"]["output"] and v["validation_report"] is None
        ok = write_bot(tmp_path / "builds", GOOD_BOT, build="echo built > built.txt")
        r = c.post("/api/bots/mine/versions", content=zip_directory(ok), headers=zipped)
        v = a.wait_for(alice, lambda v: v["status"] in ("valid", "failed"), path="/api/bots/mine/versions/2")
        assert v["status"] == "valid", v
        assert (a.dir / "versions" / "mine" / "2" / "built.txt").is_file()
        assert (a.dir / "versions" / "mine" / "1.zip").is_file(), "the archive as sent is kept"
        assert [x["number"] for x in c.get("/api/bots/mine/versions").json()["versions"]] == [1, 2]
        # A build may not make a version bigger than an archive may unpack to (1 MB here).
        filler = write_bot(tmp_path / "filler", GOOD_BOT, build="head -c 2000000 /dev/zero > big.bin")
        r = c.post("/api/bots/mine/versions", content=zip_directory(filler), headers=zipped)
        filled = a.wait_for(alice, lambda v: v["status"] in ("valid", "failed"), path="/api/bots/mine/versions/3")
        assert filled["status"] == "failed" and "keeps at most 1000000" in filled["build_report"]["error"], filled
        assert not (a.dir / "versions" / "mine" / "3").exists(), "its files are gone, its archive kept"
        if c.get("/api/status").json()["sandbox"] != "sandboxed (bubblewrap)":
            pytest.skip("bubblewrap cannot run here: the arena ran without the sandbox, and said so")
        assert v["validation_report"]["address"].startswith("unix:"), "validated in the sandbox"
        # In the sandbox a build sees its own directory and the system, not the arena's files.
        db = a.dir / "arena.db"
        thief = write_bot(tmp_path / "thief", GOOD_BOT, build=f"id -u > uid.txt; cat {db} > stolen.txt")
        r = c.post("/api/bots/mine/versions", content=zip_directory(thief), headers=zipped)
        v = a.wait_for(alice, lambda v: v["status"] in ("valid", "failed"), path="/api/bots/mine/versions/4")
        assert v["status"] == "failed" and "No such file" in v["build_report"]["output"], v["build_report"]
        assert (a.dir / "versions" / "mine" / "4" / "uid.txt").read_text().strip() != "0", "not as root"


def test_after_the_deadline_submissions_are_refused_with_the_deadline(
    tmp_path: Path, arena_factory: list[Arena]
) -> None:
    a = make_arena(tmp_path, house=HOUSE2, classroom='deadline = "2020-01-31T17:00:00Z"\nfinal_auto = false')
    arena_factory.append(a)
    alice = a.add_user("alice")
    a.serve()
    with a.client(alice) as c:
        r = c.post("/api/bots/late/versions", json={"address": "127.0.0.1:9"})
        assert r.status_code == 403 and "2020-01-31T17:00:00+00:00" in r.json()["error"]
        assert c.get("/api/status").json()["submissions_open"] is False


def test_unpacked_files_are_readable_by_the_bots_own_uid_whatever_modes_the_zip_gave(tmp_path: Path) -> None:
    """Python's ZipFile.writestr of a bare name writes mode 0600; the sandboxed bot, another uid, must
    still read its own files (and none may write them)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, mode in (("bot.toml", 0o600), ("bot.py", 0o600), ("run.sh", 0o700)):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            zf.writestr(info, MANIFEST if name == "bot.toml" else "x")
    data = buf.getvalue()
    unpack(data, check_archive(data, LIMITS), tmp_path / "v", LIMITS)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "v").iterdir()}
    assert modes == {"bot.toml": 0o644, "bot.py": 0o644, "run.sh": 0o755}


def test_an_archive_naming_one_member_twice_is_refused() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name": the very point
        zf.writestr("bot.toml", MANIFEST)
        zf.writestr("bot.toml", MANIFEST)
    with pytest.raises(ArchiveError, match="more than once"):
        check_archive(buf.getvalue(), LIMITS)


def test_a_command_naming_a_host_file_outside_its_version_is_refused_before_it_runs(
    tmp_path: Path, arena_factory: list[Arena]
) -> None:
    """The sandbox gives a bot the folder of the files its command names: a command naming the
    arena's database would be handed the arena's own folder (read-only, database included)."""
    a = make_arena(tmp_path, house=HOUSE2)
    arena_factory.append(a)
    alice = a.add_user("alice")
    a.serve()
    db = a.dir / "arena.db"
    folder = write_bot(tmp_path / "reader", GOOD_BOT)
    (folder / "bot.toml").write_text(f'command = "python bot.py --port {{port}} {db}"\nlanguage = "python"\n')
    with a.client(alice) as c:
        r = c.post(
            "/api/bots/mine/versions", content=zip_directory(folder), headers={"Content-Type": "application/zip"}
        )
        assert r.status_code == 201, r.text
        v = a.wait_for(alice, lambda v: v["status"] in ("valid", "failed"), path="/api/bots/mine/versions/1")
    assert v["status"] == "failed", v
    assert f"names {str(db)!r}, which is not a file of this version" in v["validation_report"]["error"], v
    assert not (a.dir / "logs" / "validate").exists() or not any((a.dir / "logs" / "validate").glob("*mine*"))


def test_a_build_cannot_make_a_namespace_either(tmp_path: Path, arena_factory: list[Arena]) -> None:
    """A build runs under the bots' seccomp filter: no user namespace, so no mount of its own."""
    a = make_arena(tmp_path, house=HOUSE2)
    arena_factory.append(a)
    alice = a.add_user("alice")
    a.serve()
    folder = write_bot(tmp_path / "ns", GOOD_BOT, build="unshare -Urm true 2> unshare.txt; echo $? > rc.txt")
    with a.client(alice) as c:
        if c.get("/api/status").json()["sandbox"] != "sandboxed (bubblewrap)":
            pytest.skip("bubblewrap cannot run here: builds run without the sandbox, and it says so")
        zipped = {"Content-Type": "application/zip"}
        r = c.post("/api/bots/mine/versions", content=zip_directory(folder), headers=zipped)
        assert r.status_code == 201, r.text
        a.wait_for(alice, lambda v: v["status"] in ("valid", "failed"), path="/api/bots/mine/versions/1")
    built = a.dir / "versions" / "mine" / "1"
    assert (built / "rc.txt").read_text().strip() != "0"
    assert "Operation not permitted" in (built / "unshare.txt").read_text()
