"""Archives as a stranger may upload them, made in the test: honest ones, hostile ones, and bombs.

:mod:`zipfile` and :mod:`tarfile` make the ordinary ones. What they will not
write (a NUL in a zip's name, a member whose headers lie) or would take
seconds to write (300 MiB of zeros deflated) is laid out here by hand: a
deflate stream of zeros is one block of a MiB of zeros, flushed, repeated,
so a 2 GiB member costs a few MB and no time.
"""

from __future__ import annotations

import io
import os
import struct
import tarfile
import warnings
import zipfile
import zlib
from pathlib import Path

MIB = 1 << 20
LOCAL = struct.Struct("<4s2B4HL2L2H")  # a zip's local file header
CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # its central directory entry
END = struct.Struct("<4s4H2LH")  # its end record
DEFLATED = 8


def _zeros_block() -> bytes:
    """A MiB of zeros, deflated and fully flushed: it can follow any fully flushed block."""
    deflater = zlib.compressobj(wbits=-15)
    return deflater.compress(bytes(MIB)) + deflater.flush(zlib.Z_FULL_FLUSH)


def deflated_zeros(mib: int, before: bytes = b"") -> bytes:
    """A raw deflate stream of ``before`` and then ``mib`` MiB of zeros."""
    deflater = zlib.compressobj(wbits=-15)
    head = deflater.compress(before) + deflater.flush(zlib.Z_FULL_FLUSH)
    return head + _zeros_block() * mib + zlib.compressobj(wbits=-15).flush()


def zip_by_hand(path: Path, members: list[tuple[bytes, bytes, int, int]]) -> Path:
    """A zip of ``(raw name, deflated data, declared size, unix mode)`` members, written as given: names
    zipfile would not write, sizes that lie. The CRCs are 0: an unpack refuses before it checks one."""
    out = bytearray()
    central = bytearray()
    for name, data, size, mode in members:
        offset = len(out)
        out += LOCAL.pack(b"PK\x03\x04", 20, 0, 0, DEFLATED, 0, 0x21, 0, len(data), size, len(name), 0)
        out += name + data
        central += CENTRAL.pack(
            b"PK\x01\x02", 20, 3, 20, 0, 0, DEFLATED, 0, 0x21, 0, len(data), size, len(name), 0, 0, 0, 0,
            mode << 16, offset,
        )  # fmt: skip
        central += name
    end = END.pack(b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(out), 0)
    path.write_bytes(bytes(out + central + end))
    return path


def zip_bomb(path: Path, mib: int) -> Path:
    """A zip of one member of ``mib`` MiB of zeros, its sizes declared honestly."""
    return zip_by_hand(path, [(b"zeros", deflated_zeros(mib), mib * MIB, 0o100644)])


def tar_gz_bomb(path: Path, mib: int, name: str = "zeros") -> Path:
    """A tar.gz of one member of ``mib`` MiB of zeros, as its header declares."""
    header = tarfile.TarInfo(name)
    header.size = mib * MIB
    body = deflated_zeros(mib, before=header.tobuf(format=tarfile.GNU_FORMAT))
    gzip_header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    path.write_bytes(gzip_header + body + struct.pack("<2L", 0, 0))
    return path


def zip_of(path: Path, files: dict[str, bytes] | list[tuple[str, bytes]], modes: dict[str, int] | None = None) -> Path:
    """A zip made by zipfile: ``files`` by name (a list may name one twice), with unix ``modes`` where given."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a name written twice, which a test means
        for name, data in files.items() if isinstance(files, dict) else files:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (modes or {}).get(name, 0o100644) << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return path


def tar_gz_of(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    """A tar.gz made by tarfile: a ``(name, data)`` is a file, a TarInfo is written as it is (a link,
    a device, a folder)."""
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as archive:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                archive.addfile(member)
            else:
                name, data = member
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mode = 0o644
                archive.addfile(info, io.BytesIO(data))
    return path


def tar_member(name: str, kind: bytes, **fields: object) -> tarfile.TarInfo:
    """A tar member of ``kind`` (tarfile.SYMTYPE, LNKTYPE, ...) with these fields."""
    info = tarfile.TarInfo(name)
    info.type = kind
    for key, value in fields.items():
        setattr(info, key, value)
    return info


def zip_folder(path: Path, folder: Path, top: str = "", skip: tuple[str, ...] = ()) -> Path:
    """A zip of ``folder``'s files (links left out, as an author's zip tool may), under the folder
    ``top`` when given (as GitHub's zips are), leaving out the folder names in ``skip``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for here, folders, names in os.walk(folder):
            folders[:] = sorted(f for f in folders if f not in skip and not Path(here, f).is_symlink())
            for name in sorted(names):
                file = Path(here, name)
                if file.is_symlink():
                    continue
                inside = file.relative_to(folder).as_posix()
                archive.write(file, f"{top}/{inside}" if top else inside)
    return path


def listing(folder: Path) -> list[str]:
    """Every path under ``folder``, links not followed: what a test compares before and after."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
