"""An uploaded archive unpacks into its folder and nowhere else, within its limits, or is refused whole.

Every archive is made here, by zipfile and tarfile or by hand where they will
not write what a hostile uploader would (tests/support/uploads.py). Each
refusal is checked three ways: its one-line message names the member and what
is allowed, the target folder is left empty, and nothing appeared beside it.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.small_disk import SmallDisk
from tests.support.uploads import (
    MIB,
    deflated_zeros,
    listing,
    tar_gz_bomb,
    tar_gz_of,
    tar_member,
    zip_bomb,
    zip_by_hand,
    zip_of,
)
from waraq.ladder.submit.archive import ArchiveLimits, Unpacked, UploadError, unpack, unpack_tar


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path]:
    """An empty target folder inside a parent that holds one other file, as a ladder's bot folder sits."""
    parent = tmp_path / "bots"
    target = parent / "v1"
    target.mkdir(parents=True)
    (parent / "other.txt").write_text("another bot's file")
    return parent, target


DEFAULT = ArchiveLimits()


def refused(archive: Path, place: tuple[Path, Path], limits: ArchiveLimits = DEFAULT) -> str:
    """The refusal of ``archive``, having checked it left the target empty and nothing beside it."""
    parent, target = place
    before = listing(parent.parent)
    with pytest.raises(UploadError) as refusal:
        unpack(archive, target, limits)
    assert list(target.iterdir()) == []
    assert listing(parent.parent) == before
    message = str(refusal.value)
    assert "\n" not in message
    return message


# -- what is taken -------------------------------------------------------------------------


def test_a_github_zip_is_unpacked_without_its_top_folder_and_with_safe_modes(tmp_path, place):
    archive = zip_of(
        tmp_path / "main.zip",
        {
            "bot-main/bot.py": b"print(1)\n",
            "bot-main/run.sh": b"#!/bin/sh\n",
            "bot-main/lib/x.py": b"",
            "bot-main/s": b"",
        },
        modes={"bot-main/run.sh": 0o100755, "bot-main/s": 0o106777, "bot-main/bot.py": 0o100600},
    )
    _, target = place
    done = unpack(archive, target)
    assert done == Unpacked(files=4, folders=1, bytes=len(b"print(1)\n#!/bin/sh\n"), stripped="bot-main")
    assert listing(target) == ["bot.py", "lib", "lib/x.py", "run.sh", "s"]
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in target.rglob("*")}
    # The executable bit is kept, setuid and setgid never; others may read (a root referee's bot is a user
    # of its own), whatever mode or umask the upload came with.
    assert modes == {"bot.py": 0o644, "run.sh": 0o755, "s": 0o755, "lib": 0o755, "x.py": 0o644}


def test_the_format_is_read_from_the_bytes_not_the_name(tmp_path, place):
    archive = tar_gz_of(tmp_path / "bot.zip", [("bot.py", b"x"), ("waraq-bot.toml", b"")])
    _, target = place
    assert unpack(archive, target).files == 2
    assert sorted(p.name for p in target.iterdir()) == ["bot.py", "waraq-bot.toml"]


def test_two_top_entries_are_kept_as_they_are(tmp_path, place):
    archive = zip_of(tmp_path / "a.zip", {"src/bot.py": b"", "waraq-bot.toml": b""})
    _, target = place
    assert unpack(archive, target).stripped == ""
    assert listing(target) == ["src", "src/bot.py", "waraq-bot.toml"]


def test_a_plain_tar_from_a_stream(tmp_path, place):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as archive:
        for name in ("./", "./a/", "./a/b.txt"):
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE if name.endswith("/") else tarfile.REGTYPE
            info.size = 0 if name.endswith("/") else 3
            archive.addfile(info, io.BytesIO(b"abc") if info.size else None)
    data.seek(0)
    _, target = place
    done = unpack_tar(data, target, ArchiveLimits())
    assert done == Unpacked(files=1, folders=0, bytes=3, stripped="a")
    assert (target / "b.txt").read_text() == "abc"


# -- what is refused -----------------------------------------------------------------------

Make = Callable[[Path], Path]
SYMLINK_MODE = 0o120777


def _deflated(data: bytes) -> bytes:
    return deflated_zeros(0, before=data)


REFUSALS: dict[str, tuple[Make, str]] = {
    "zip absolute path": (lambda t: zip_of(t / "a.zip", {"/etc/cron.d/x": b"x"}), "'/etc/cron.d/x': an absolute path"),
    "tar absolute path": (lambda t: tar_gz_of(t / "a.tgz", [("/tmp/x", b"x")]), "'/tmp/x': an absolute path"),
    "zip dot-dot": (lambda t: zip_of(t / "a.zip", {"a/../../x": b"x"}), "'a/../../x': a '..' in its path"),
    "tar dot-dot": (lambda t: tar_gz_of(t / "a.tgz", [("ok", b""), ("../x", b"x")]), "'../x': a '..' in its path"),
    "zip NUL": (
        lambda t: zip_by_hand(t / "a.zip", [(b"bot.py\0.txt", _deflated(b"x"), 1, 0o100644)]),
        "'bot.py\\x00.txt': its name holds a control character",
    ),
    "zip backslash": (lambda t: zip_of(t / "a.zip", {"..\\x": b"x"}), "'..\\\\x': its name holds a backslash"),
    "tar control character": (lambda t: tar_gz_of(t / "a.tgz", [("a\x1bb", b"")]), "'a\\x1bb': its name holds a"),
    "zip symbolic link": (
        lambda t: zip_by_hand(t / "a.zip", [(b"evil", _deflated(b"/etc"), 4, SYMLINK_MODE)]),
        "'evil': a symbolic link; only files and folders are allowed",
    ),
    "tar symbolic link": (
        lambda t: tar_gz_of(t / "a.tgz", [tar_member("ladder", tarfile.SYMTYPE, linkname="../../")]),
        "'ladder': a symbolic link; only files and folders",
    ),
    "tar relative symbolic link": (
        lambda t: tar_gz_of(t / "a.tgz", [("a", b""), tar_member("b", tarfile.SYMTYPE, linkname="a")]),
        "'b': a symbolic link",
    ),
    "tar hard link": (
        lambda t: tar_gz_of(t / "a.tgz", [tar_member("key", tarfile.LNKTYPE, linkname="/root/.ssh/id_rsa")]),
        "'key': a hard link; only files and folders",
    ),
    "tar fifo": (lambda t: tar_gz_of(t / "a.tgz", [tar_member("f", tarfile.FIFOTYPE)]), "'f': a fifo"),
    "tar device": (
        lambda t: tar_gz_of(t / "a.tgz", [tar_member("sda", tarfile.BLKTYPE, devmajor=8)]),
        "'sda': a device",
    ),
    "zip twice": (lambda t: zip_of(t / "a.zip", [("bot.py", b"a"), ("bot.py", b"b")]), "'bot.py': named twice"),
    "tar twice": (lambda t: tar_gz_of(t / "a.tgz", [("a/b", b""), ("a/./b", b"")]), "'a/./b': named twice"),
    "tar through a file": (
        lambda t: tar_gz_of(t / "a.tgz", [("lib", b"a file"), ("lib/x.py", b"")]),
        "'lib/x.py': inside 'lib', which is a file, not a folder",
    ),
    "tar a file over a folder": (
        lambda t: tar_gz_of(t / "a.tgz", [("lib/x.py", b""), ("lib", b"a file")]),
        "'lib': a file, where the archive already has a folder",
    ),
    "too deep": (lambda t: zip_of(t / "a.zip", {"d/" * 33 + "f": b""}), "folders 33 deep; at most 32 are allowed"),
    "not an archive": (lambda t: _write(t / "bot.zip", b"#!/bin/sh\nrm -rf /\n"), "not an archive: expected a zip"),
    "a broken zip": (lambda t: _write(t / "bot.zip", b"PK\x03\x04" + bytes(100)), "the zip cannot be read"),
    "a tar header's name of 2 GiB": (
        lambda t: _write(t / "a.tar", tar_member("././@LongLink", tarfile.GNUTYPE_LONGNAME, size=2 << 30).tobuf()),
        "a tar header declares",
    ),
}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_hostile_member_refuses_the_whole_upload(case, tmp_path, place):
    make, expected = REFUSALS[case]
    assert expected in refused(make(tmp_path), place)


def test_the_limits_refuse_with_what_they_allow(tmp_path, place):
    many = {f"f{i}": b"" for i in range(11)}
    few = ArchiveLimits(members=10)
    assert refused(zip_of(tmp_path / "m.zip", many), place, few) == "the zip lists more than 10 members"
    assert "more than 10 members" in refused(tar_gz_of(tmp_path / "m.tgz", list(many.items())), place, few)
    small = ArchiveLimits(file_bytes=1000, total_bytes=1500)
    big = zip_of(tmp_path / "b.zip", {"a": bytes(1001)})
    assert refused(big, place, small) == "member 'a': over 1,000 bytes, the most one file may hold"
    two = tar_gz_of(tmp_path / "t.tgz", [("a", bytes(1000)), ("b", bytes(1000))])
    assert refused(two, place, small) == "member 'b': the files unpacked pass 1,500 bytes, the most an upload may hold"
    sent = zip_of(tmp_path / "s.zip", {"a": os.urandom(5000)})
    assert refused(sent, place, ArchiveLimits(archive_bytes=4000)).startswith("the upload is 5,")


# -- bombs ---------------------------------------------------------------------------------


def test_a_zip_bomb_is_refused_at_the_limit_of_one_file(tmp_path, place):
    bomb = zip_bomb(tmp_path / "bomb.zip", 300)  # 300 MiB of zeros in 0.3 MB
    assert bomb.stat().st_size < MIB
    assert refused(bomb, place) == "member 'zeros': over 64 MiB, the most one file may hold"


def test_a_tar_gz_of_a_2_gib_file_is_refused_at_the_limit_of_one_file(tmp_path, place):
    bomb = tar_gz_bomb(tmp_path / "bomb.tgz", 2048)
    assert bomb.stat().st_size < 4 * MIB
    assert refused(bomb, place) == "member 'zeros': over 64 MiB, the most one file may hold"


def test_a_zip_whose_header_lies_about_its_size_is_refused(tmp_path, place):
    liar = zip_by_hand(tmp_path / "liar.zip", [(b"small.txt", deflated_zeros(2), 10, 0o100644)])
    assert "the zip cannot be read" in refused(liar, place)


def test_a_bomb_writes_no_more_than_its_limit(small_disk: SmallDisk, tmp_path):
    """On a disk with room for the limit and little more, the bomb is refused by the limit, not by the disk:
    it stopped at the limit's byte, wherever the header said the file would end."""
    target = small_disk.path / "v1"
    target.mkdir()
    limits = ArchiveLimits(file_bytes=2 * MIB, total_bytes=2 * MIB)
    small_disk.fill(leave=2 * MIB + 64 * 1024)
    for bomb in (tar_gz_bomb(tmp_path / "b.tgz", 100), zip_bomb(tmp_path / "b.zip", 100)):
        with pytest.raises(UploadError, match="over 2 MiB"):
            unpack(bomb, target, limits)
        assert list(target.iterdir()) == []


@pytest.mark.slow
def test_a_hundred_thousand_tiny_files_are_refused(tmp_path, place):
    files = [(f"d{i // 1000}/f{i}", b"") for i in range(100_000)]
    zipped = zip_of(tmp_path / "many.zip", dict(files))
    assert refused(zipped, place) == "the zip lists more than 20,000 members"  # before anything is written
    assert "more than 20,000 members" in refused(tar_gz_of(tmp_path / "many.tgz", files), place)


# -- races ---------------------------------------------------------------------------------


class _Swapping(io.RawIOBase):
    """A tar stream that, once read past ``at``, swaps the target's folder ``sub`` for a link outside."""

    def __init__(self, data: bytes, at: int, swap: Callable[[], None]) -> None:
        self.data, self.at, self.swap, self.position = data, at, swap, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self.position >= self.at and self.swap is not None:
            self.swap()
            self.swap = None  # type: ignore[assignment]
        chunk = self.data[self.position : self.position + min(len(buffer), 512)]
        buffer[: len(chunk)] = chunk
        self.position += len(chunk)
        return len(chunk)


def test_a_folder_raced_into_a_link_leads_nowhere(tmp_path, place):
    parent, target = place
    outside = tmp_path / "outside"
    outside.mkdir()
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as archive:
        for name in ("sub/a.txt", "other/b.txt", "sub/c.txt"):
            info = tarfile.TarInfo(name)
            info.size = 1
            archive.addfile(info, io.BytesIO(b"x"))

    def swap() -> None:
        (target / "sub").rename(target / "moved")
        (target / "sub").symlink_to(outside)

    with pytest.raises(OSError):
        # sub/c.txt comes after the swap: walking to it finds a link, and O_NOFOLLOW refuses to go on.
        unpack_tar(_Swapping(data.getvalue(), 2048, swap), target, ArchiveLimits())
    assert list(outside.iterdir()) == []
    assert list(target.iterdir()) == []
