"""An uploaded archive unpacked into an empty folder, and nothing anywhere else.

An upload is a stranger's file, and unpacking one is the classic way to be
made to write where one should not (``../../ladder.key``, a link member
pointing at the ladder and a file written "through" it) or far more than
was sent (a zip bomb: 2 GiB of zeros deflate to 2 MB). So:

* the format is read from the content (a zip's ``PK\\3\\4``, gzip's ``\\x1f\\x8b``,
  a tar's ``ustar``), never from the file's name;
* every member's name is checked before anything is written: relative, no
  ``..``, no NUL, backslash or control character, not twice, and no member
  inside another that is a file; only files and folders are taken: a link
  (symbolic or hard), a device or a fifo refuses the whole upload;
* the limits (:class:`ArchiveLimits`) are counted on the bytes actually
  written and read, never on the sizes the headers declare, and the first
  byte over one stops the unpack: a bomb is refused having written at most
  its limit. A tar's headers are read through a reader that refuses any one
  read larger than a file's chunk, so a header declaring a 2 GiB long name
  is never held in memory; a zip's central directory is counted before
  :mod:`zipfile` builds its list of members;
* writes go through descriptors of the folders made here (``openat`` with
  ``O_NOFOLLOW``, files ``O_EXCL``), so a folder raced into a link leads
  nowhere; files get mode 0644, or 0755 when the member was executable
  (never setuid or setgid), folders 0755, whatever the process's umask;
* a refused unpack removes what it wrote: the folder is left empty.

An archive whose every member is under one top folder (GitHub's "Download
ZIP") is unpacked without that folder. :func:`unpack` takes an upload;
:func:`unpack_tar` the tar stream of a build's result
(:mod:`waraq.ladder.submit.build`). Nothing here imports the web service or
knows what a bot is.
"""

from __future__ import annotations

import io
import os
import secrets
import shutil
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum, StrEnum
from pathlib import Path
from typing import BinaryIO, Protocol

MIB = 1 << 20
CHUNK = 1 << 20  # bytes copied at a time; also the largest read a tar's reader grants
NAME_BYTES = 255  # a file name's most, on Linux's file systems
PATH_BYTES = 4096
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")  # a member first; or an empty zip's end record
GZIP_SIGNATURE = b"\x1f\x8b"
TAR_MAGIC = b"ustar"  # at byte 257 of a POSIX or GNU tar's first header
TAR_MAGIC_AT = 257


class Readable(Protocol):
    """What an archive is read from: a file, or a pipe."""

    def read(self, size: int = -1, /) -> bytes: ...


class UploadError(ValueError):
    """An archive that is refused; the one-line message names the member and what is allowed."""


@dataclass(frozen=True)
class ArchiveLimits:
    """What one archive may be and hold, counted as it is read and written."""

    archive_bytes: int = 64 * MIB  # the archive as sent (compressed)
    total_bytes: int = 256 * MIB  # every file unpacked, together
    members: int = 20_000  # files and folders
    file_bytes: int = 64 * MIB  # any one file unpacked
    depth: int = 32  # folders one inside another

    def __post_init__(self) -> None:
        for name in ("archive_bytes", "total_bytes", "members", "file_bytes", "depth"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"archive limit {name} = {value!r}: expected a whole number >= 1")


@dataclass(frozen=True)
class Unpacked:
    """What an unpack wrote."""

    files: int
    folders: int
    bytes: int
    stripped: str = ""  # the one top folder left out, "" when there was none


class Format(StrEnum):
    ZIP = "zip"
    TAR_GZ = "tar.gz"
    TAR = "tar"


def sniff(head: bytes) -> Format | None:
    """The format of an archive that begins with ``head`` (its first 512 bytes), None if none we take."""
    if head[:4] in ZIP_SIGNATURES:
        return Format.ZIP
    if head[:2] == GZIP_SIGNATURE:
        return Format.TAR_GZ
    if head[TAR_MAGIC_AT : TAR_MAGIC_AT + len(TAR_MAGIC)] == TAR_MAGIC:
        return Format.TAR
    return None


def unpack(archive: Path, target: Path, limits: ArchiveLimits = ArchiveLimits()) -> Unpacked:
    """Unpack the upload ``archive`` (a zip, tar.gz or tar, told by its content) into the empty folder
    ``target``. Raises :class:`UploadError` for anything the archive holds or is, having left ``target``
    empty; an ``OSError`` of the host's own (a full disk) leaves it empty too, and is raised as it is."""
    with open(archive, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if size > limits.archive_bytes:
            raise UploadError(f"the upload is {_size(size)}: at most {_size(limits.archive_bytes)} is allowed")
        kind = sniff(file.read(512))
        file.seek(0)
        if kind is None:
            raise UploadError("the upload is not an archive: expected a zip, a tar.gz (.tgz) or a tar")
        with _Writer(target, limits) as writer:
            if kind is Format.ZIP:
                _unzip(file, size, writer)
            else:
                stream = _Inflated(file, limits) if kind is Format.TAR_GZ else _Counted(file, limits)
                _untar(stream, writer, kind)
            return writer.done()


def unpack_tar(stream: Readable, target: Path, limits: ArchiveLimits) -> Unpacked:
    """Unpack the plain tar read from ``stream`` (a pipe) into the empty folder ``target``, as :func:`unpack`
    does; ``limits.archive_bytes`` bounds the bytes read from the stream."""
    with _Writer(target, limits) as writer:
        _untar(_Counted(stream, limits), writer, Format.TAR)
        return writer.done()


# -- names ---------------------------------------------------------------------------------


def parts_of(name: str, limits: ArchiveLimits, *, folder: bool) -> tuple[str, ...]:
    """The path of the member ``name`` as its parts, checked; () for the archive's own root (``./``)."""
    shown = repr(name[:200])
    if not name:
        raise UploadError("a member has an empty name")
    if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in name):
        raise UploadError(f"member {shown}: its name holds a control character or bytes that are not UTF-8")
    if "\\" in name:
        raise UploadError(f"member {shown}: its name holds a backslash; use / between folders")
    if name.startswith("/"):
        raise UploadError(f"member {shown}: an absolute path; only paths inside the archive are allowed")
    parts = tuple(part for part in name.split("/") if part not in ("", "."))
    if not parts and not folder:
        raise UploadError(f"member {shown}: a file with no name")
    if ".." in parts:
        raise UploadError(f"member {shown}: a '..' in its path; only paths inside the archive are allowed")
    if len(name.encode()) > PATH_BYTES or any(len(part.encode()) > NAME_BYTES for part in parts):
        raise UploadError(f"member {shown}: a name over {NAME_BYTES} bytes, or a path over {PATH_BYTES}")
    deep = len(parts) - (0 if folder else 1)
    if deep > limits.depth:
        raise UploadError(f"member {shown}: folders {deep} deep; at most {limits.depth} are allowed")
    return parts


class Kind(Enum):
    FILE = "a file"
    FOLDER = "a folder"


# -- writing -------------------------------------------------------------------------------


class _Writer:
    """Makes members under ``target`` through folder descriptors; counts and limits what it writes."""

    def __init__(self, target: Path, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.root = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        if os.listdir(self.root):
            os.close(self.root)
            raise ValueError(f"{target} is not empty: an archive is unpacked into an empty folder")
        self.kinds: dict[tuple[str, ...], Kind] = {}  # every path made, a member's or a folder on its way
        self.named: set[tuple[str, ...]] = set()  # the members' own paths, to refuse one named twice
        self.members = self.files = self.bytes = 0
        self._open: tuple[tuple[str, ...], int] | None = None  # the last folder written in, and its descriptor

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self._close_folder()
        try:
            if kind is not None:
                self._discard()
        finally:
            os.close(self.root)

    def member(self, name: str, kind: Kind) -> tuple[str, ...]:
        """Check the member ``name`` of ``kind`` against the names so far and the limits; its path."""
        parts = parts_of(name, self.limits, folder=kind is Kind.FOLDER)
        if not parts:
            return parts  # the archive's root itself
        self.members += 1
        if self.members > self.limits.members:
            raise UploadError(f"member {name[:200]!r}: more than {self.limits.members:,} members")
        if parts in self.named:
            raise UploadError(f"member {name[:200]!r}: named twice; each path may be given once")
        self.named.add(parts)
        for depth in range(1, len(parts)):
            if self.kinds.get(parts[:depth]) is Kind.FILE:
                where = "/".join(parts[:depth])
                raise UploadError(f"member {name[:200]!r}: inside {where!r}, which is a file, not a folder")
        made = self.kinds.get(parts)
        if made is not None and (made is Kind.FILE or kind is Kind.FILE):
            raise UploadError(f"member {name[:200]!r}: {kind.value}, where the archive already has {made.value}")
        return parts

    def folder(self, parts: tuple[str, ...]) -> None:
        if parts:
            self._folder_fd(parts)

    def file(self, parts: tuple[str, ...], executable: bool, chunks: Iterator[bytes]) -> None:
        """Write the file at ``parts`` from ``chunks``, refusing at the first chunk over a limit."""
        where = self._folder_fd(parts[:-1])
        self.kinds[parts] = Kind.FILE
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(parts[-1], flags, 0o600, dir_fd=where)
        self.files += 1
        written = 0
        with open(fd, "wb", buffering=0, closefd=True) as out:
            for chunk in chunks:
                written += len(chunk)
                if written > self.limits.file_bytes:
                    raise UploadError(
                        f"member {'/'.join(parts)[:200]!r}: over {_size(self.limits.file_bytes)}, "
                        "the most one file may hold"
                    )
                if self.bytes + len(chunk) > self.limits.total_bytes:
                    raise UploadError(
                        f"member {'/'.join(parts)[:200]!r}: the files unpacked pass {_size(self.limits.total_bytes)}, "
                        "the most an upload may hold"
                    )
                out.write(chunk)
                self.bytes += len(chunk)
            os.fchmod(out.fileno(), 0o755 if executable else 0o644)  # never setuid, setgid or sticky

    def done(self) -> Unpacked:
        """The unpack is whole: leave out a lone top folder, and say what was written."""
        self._close_folder()
        tops = [parts for parts in self.kinds if len(parts) == 1]
        stripped = ""
        if len(tops) == 1 and self.kinds[tops[0]] is Kind.FOLDER:
            stripped = tops[0][0]
            self._strip(stripped)
        folders = sum(1 for kind in self.kinds.values() if kind is Kind.FOLDER) - (1 if stripped else 0)
        return Unpacked(self.files, folders, self.bytes, stripped)

    def _folder_fd(self, parts: tuple[str, ...]) -> int:
        """A descriptor of the folder at ``parts``, made (mode 0755) where it is not yet."""
        if self._open is not None and self._open[0] == parts:
            return self._open[1]
        self._close_folder()
        fd = os.dup(self.root)
        try:
            for depth in range(1, len(parts) + 1):
                here = parts[:depth]
                if here not in self.kinds:
                    os.mkdir(here[-1], 0o700, dir_fd=fd)
                inner = os.open(here[-1], os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                os.close(fd)
                fd = inner
                if here not in self.kinds:
                    os.fchmod(fd, 0o755)
                    self.kinds[here] = Kind.FOLDER
        except BaseException:
            os.close(fd)
            raise
        self._open = (parts, fd)
        return fd

    def _close_folder(self) -> None:
        if self._open is not None:
            os.close(self._open[1])
            self._open = None

    def _strip(self, top: str) -> None:
        """Move the contents of the lone folder ``top`` up into the target, and remove it."""
        inside = {parts[1] for parts in self.kinds if len(parts) > 1 and parts[0] == top}
        aside = top
        while aside in inside or aside == top:  # a name no member of ``top`` has, to move it out of the way
            aside = f".waraq-unpack-{secrets.token_hex(6)}"
        os.rename(top, aside, src_dir_fd=self.root, dst_dir_fd=self.root)
        fd = os.open(aside, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.root)
        try:
            for name in inside:
                os.rename(name, name, src_dir_fd=fd, dst_dir_fd=self.root)
        finally:
            os.close(fd)
        os.rmdir(aside, dir_fd=self.root)

    def _discard(self) -> None:
        """Remove everything in the target: all of it was written here (it was empty)."""
        for name in os.listdir(self.root):
            info = os.stat(name, dir_fd=self.root, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(name, dir_fd=self.root)
            else:
                os.unlink(name, dir_fd=self.root)


# -- zip -----------------------------------------------------------------------------------

_END = struct.Struct("<4s4H2LH")  # a zip's end of central directory record
_END64 = struct.Struct("<4sQ2H2L4Q")  # zip64's
_LOCATOR64 = struct.Struct("<4sLQL")
_CENTRAL = 46  # the fixed part of a central directory entry; its name, extra and comment lengths at 28


def _unzip(file: BinaryIO, size: int, writer: _Writer) -> None:
    _count_central_directory(file, size, writer.limits)
    try:
        with zipfile.ZipFile(file) as archive:
            for info in archive.infolist():
                _unzip_member(archive, info, writer)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error) as error:
        raise UploadError(f"the zip cannot be read: {error}") from None
    except RuntimeError as error:  # zipfile's word for an encrypted member
        raise UploadError(f"the zip cannot be read: {error}; encrypted members are not allowed") from None


def _unzip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, writer: _Writer) -> None:
    name = info.orig_filename  # zipfile's own filename is cut at a NUL, which is refused here instead
    mode = info.external_attr >> 16 if info.create_system == 3 else 0  # unix's mode, when made on unix
    kind = stat.S_IFMT(mode)
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise UploadError(f"member {name[:200]!r}: {_unix_kind(kind)}; only files and folders are allowed")
    folder = name.endswith("/") or kind == stat.S_IFDIR
    parts = writer.member(name, Kind.FOLDER if folder else Kind.FILE)
    if folder:
        writer.folder(parts)
        return
    if info.flag_bits & 0x1:
        raise UploadError(f"member {name[:200]!r}: encrypted; encrypted members are not allowed")
    with archive.open(info) as data:
        writer.file(parts, bool(mode & 0o111), iter(lambda: data.read(CHUNK), b""))


def _count_central_directory(file: BinaryIO, size: int, limits: ArchiveLimits) -> None:
    """Refuse a zip whose central directory lists more than ``limits.members`` entries, before zipfile
    reads it: a 64 MiB directory of 46-byte entries would be 1.4 million objects in memory."""
    tail = min(size, _END.size + 0xFFFF)  # the end record, and a comment of up to 64 KiB after it
    file.seek(size - tail)
    data = file.read(tail)
    at = data.rfind(b"PK\x05\x06")
    if at < 0 or at + _END.size > len(data):
        return  # no end record: zipfile says so
    *_, directory, _offset, _comment = _END.unpack_from(data, at)
    end = size - tail + at  # where the directory ends, as zipfile finds it: counted back from the end record
    zip64 = at - _LOCATOR64.size - _END64.size
    if zip64 >= 0 and data[at - _LOCATOR64.size : at - _LOCATOR64.size + 4] == b"PK\x06\x07":
        record = _END64.unpack_from(data, zip64)  # zip64's own end record, just before its locator
        if record[0] == b"PK\x06\x06":
            directory, end = record[8], end - _LOCATOR64.size - _END64.size
    if directory > size:
        return  # a lie zipfile refuses itself
    file.seek(max(0, end - directory))
    listing = file.read(directory)
    count = position = 0
    while position + _CENTRAL <= len(listing) and listing[position : position + 4] == b"PK\x01\x02":
        name, extra, comment = struct.unpack_from("<3H", listing, position + 28)
        position += _CENTRAL + name + extra + comment
        count += 1
        if count > limits.members:
            raise UploadError(f"the zip lists more than {limits.members:,} members")
    file.seek(0)


UNIX_KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a fifo",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


def _unix_kind(kind: int) -> str:
    return UNIX_KINDS.get(kind, "a special file")


# -- tar -----------------------------------------------------------------------------------


def _untar(stream: _Stream, writer: _Writer, kind: Format) -> None:
    try:
        with tarfile.open(fileobj=stream, mode="r:") as archive:
            for member in archive:
                _untar_member(archive, member, writer)
    except (tarfile.TarError, EOFError, zlib.error) as error:
        raise UploadError(f"the {kind} cannot be read: {error}") from None


def _untar_member(archive: tarfile.TarFile, member: tarfile.TarInfo, writer: _Writer) -> None:
    name = member.name
    if not (member.isreg() or member.isdir()) or member.issparse():
        raise UploadError(f"member {name[:200]!r}: {_tar_kind(member)}; only files and folders are allowed")
    parts = writer.member(name, Kind.FOLDER if member.isdir() else Kind.FILE)
    if member.isdir():
        writer.folder(parts)
        return
    data = archive.extractfile(member)
    assert data is not None  # a regular member always has its data
    with data:
        writer.file(parts, bool(member.mode & 0o111), iter(lambda: data.read(CHUNK), b""))


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "a symbolic link"
    if member.islnk():
        return "a hard link"
    if member.isfifo():
        return "a fifo"
    if member.isdev():
        return "a device"
    return "a sparse file" if member.issparse() else "a special member"


class _Stream(io.RawIOBase):
    """An archive's bytes read forward only, in reads of at most :data:`CHUNK` (and a header's 512 bytes):
    tarfile reads a header's long name or pax records in one read of the size the header declares,
    which this refuses rather than holds. tarfile seeks only forward on a stream opened ``r:``."""

    def __init__(self, source: Readable, limits: ArchiveLimits) -> None:
        self.source = source
        self.limits = limits
        self.position = 0  # of what is read from here (inflated, for a tar.gz)
        self.sent = 0  # of what is read from the source

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = offset if whence == io.SEEK_SET else self.position + offset
        if whence not in (io.SEEK_SET, io.SEEK_CUR) or target < self.position:
            raise UploadError("the tar is read as a stream, forward only")  # tarfile never goes back here
        while self.position < target:
            if not self.read(min(CHUNK, target - self.position)):
                break
        return self.position

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > CHUNK + 512:
            raise UploadError(f"a tar header declares {_size(max(size, 0))} of names or records; too much")
        data = self._read(size)
        self.position += len(data)
        return data

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(min(len(buffer), CHUNK))
        buffer[: len(data)] = data
        return len(data)

    def _read(self, size: int) -> bytes:
        raise NotImplementedError

    def _raw(self, size: int) -> bytes:
        """Up to ``size`` bytes of the source (fewer only at its end), counted against ``archive_bytes``."""
        chunks = []
        while size > 0:
            chunk = self.source.read(size)
            if not chunk:
                break
            chunks.append(chunk)
            size -= len(chunk)
        data = b"".join(chunks)
        self.sent += len(data)
        if self.sent > self.limits.archive_bytes:
            raise UploadError(f"the archive passes {_size(self.limits.archive_bytes)}, the most allowed")
        return data


class _Counted(_Stream):
    """A plain tar: its bytes as they come."""

    def _read(self, size: int) -> bytes:
        return self._raw(size)


class _Inflated(_Stream):
    """A gzip stream (one member or several) inflated as it is read. What it inflates to is bounded by
    what its files may hold and their headers (1.5 KiB a member: a header, pax records, padding)."""

    def __init__(self, source: Readable, limits: ArchiveLimits) -> None:
        super().__init__(source, limits)
        self.inflater = zlib.decompressobj(wbits=31)
        self.fed = False  # whether the current gzip member has had any input
        self.pending = b""
        self.inflated = 0
        self.cap = limits.total_bytes + limits.members * 1536 + CHUNK

    def _read(self, size: int) -> bytes:
        while len(self.pending) < size:
            more = self._inflate(size - len(self.pending))
            if not more:
                break
            self.pending += more
        data, self.pending = self.pending[:size], self.pending[size:]
        self.inflated += len(data)
        if self.inflated > self.cap:
            raise UploadError(f"the tar.gz inflates past {_size(self.cap)}, more than its files may hold")
        return data

    def _inflate(self, size: int) -> bytes:
        """Up to ``size`` more inflated bytes; b"" at the end of the last gzip member."""
        while True:
            if self.inflater.eof:  # the next gzip member, if any, starts in what is left
                rest = self.inflater.unused_data
                self.inflater, self.fed = zlib.decompressobj(wbits=31), bool(rest)
                data = self.inflater.decompress(rest, size) if rest else b""
            elif self.inflater.unconsumed_tail:
                data = self.inflater.decompress(self.inflater.unconsumed_tail, size)
            else:
                raw = self._raw(64 << 10)
                if not raw:
                    if self.fed:
                        raise UploadError("the tar.gz ends before its gzip stream does")
                    return b""
                self.fed = True
                data = self.inflater.decompress(raw, size)
            if data:
                return data


def _size(count: int) -> str:
    if count >= MIB and count % MIB == 0:
        return f"{count // MIB:,} MiB" if count < 1 << 30 or count % (1 << 30) else f"{count >> 30:,} GiB"
    if count >= MIB:
        return f"{count / MIB:,.1f} MiB"
    return f"{count:,} bytes"
