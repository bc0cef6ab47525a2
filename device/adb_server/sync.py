"""The ``sync:`` service: file transfer requests (STAT, LIST, RECV, SEND, QUIT).

Requests are an id, a little-endian length and a path; replies follow
``file_sync_protocol.h`` (version 1, which is what a device without the
``stat_v2``/``ls_v2``/``sendrecv_v2`` features speaks).
"""

from __future__ import annotations

import struct

from latent_agent.device.adb_server.served_phone import ServedPhone
from latent_agent.device.adb_server.stream import Stream, StreamClosed
from latent_agent.device.adb_server.vfs import VfsError

#: Largest DATA chunk in either direction (``SYNC_DATA_MAX``).
SYNC_DATA_MAX = 64 * 1024
#: Paths longer than this are refused, as adbd does.
MAX_PATH = 1024

_U32 = struct.Struct("<I")
_REQ = struct.Struct("<4sI")


def _fail(stream: Stream, message: str) -> None:
    data = message.encode()
    stream.write(b"FAIL" + _U32.pack(len(data)) + data)


def serve_sync(stream: Stream, phone: ServedPhone) -> None:
    """Answer sync requests until QUIT or the stream closes."""
    try:
        while True:
            ident, length = _REQ.unpack(stream.read_exact(_REQ.size))
            if ident == b"QUIT":
                return
            if length > MAX_PATH and ident != b"DATA":
                _fail(stream, f"path too long: {length}")
                return
            path = stream.read_exact(length).decode("utf-8", "surrogateescape")
            if ident == b"STAT":
                st = phone.vfs.stat(path)
                mode, size, mtime = (st.mode, st.size, st.mtime) if st else (0, 0, 0)
                stream.write(b"STAT" + struct.pack("<3I", mode, size & 0xFFFFFFFF, mtime))
            elif ident == b"LIST":
                _list(stream, phone, path)
            elif ident == b"RECV":
                _recv(stream, phone, path)
            elif ident == b"SEND":
                if not _send(stream, phone, path):
                    return
            else:
                _fail(stream, f"unknown sync request {ident!r}")
                return
    except StreamClosed:
        return
    finally:
        stream.close()


def _list(stream: Stream, phone: ServedPhone, path: str) -> None:
    try:
        entries = phone.vfs.listdir(path)
    except VfsError:
        entries = []
    for name, st in [(".", None), ("..", None), *entries]:
        if st is None:
            mode, size, mtime = 0o40771, 0, 0
        else:
            mode, size, mtime = st.mode, st.size, st.mtime
        raw = name.encode("utf-8", "surrogateescape")
        stream.write(b"DENT" + struct.pack("<4I", mode, size & 0xFFFFFFFF, mtime, len(raw)) + raw)
    stream.write(b"DONE" + struct.pack("<4I", 0, 0, 0, 0))


def _recv(stream: Stream, phone: ServedPhone, path: str) -> None:
    try:
        data = phone.vfs.read(path)
    except VfsError as exc:
        _fail(stream, f"open failed: {exc}")
        return
    for i in range(0, len(data), SYNC_DATA_MAX):
        chunk = data[i:i + SYNC_DATA_MAX]
        stream.write(b"DATA" + _U32.pack(len(chunk)) + chunk)
    stream.write(b"DONE" + _U32.pack(0))


def _send(stream: Stream, phone: ServedPhone, spec: str) -> bool:
    """Receive a file; returns False when the request was malformed and the stream must end."""
    path, _, mode_text = spec.rpartition(",")
    if not path:
        path, mode_text = spec, "33188"
    try:
        mode = int(mode_text)
    except ValueError:
        _fail(stream, f"bad SEND mode {mode_text!r}")
        return False
    buf = bytearray()
    while True:
        ident, arg = _REQ.unpack(stream.read_exact(_REQ.size))
        if ident == b"DATA":
            if arg > SYNC_DATA_MAX:
                _fail(stream, f"data chunk of {arg} bytes exceeds {SYNC_DATA_MAX}")
                return False
            buf.extend(stream.read_exact(arg))
        elif ident == b"DONE":
            try:
                if phone.vfs.stat(path) is None:
                    parent = path.rsplit("/", 1)[0] or "/"
                    phone.vfs.mkdir(parent, parents=True)
                phone.vfs.write(path, bytes(buf), mode=mode, mtime=arg)
            except VfsError as exc:
                _fail(stream, f"{path}: {exc}")
                return True
            stream.write(b"OKAY" + _U32.pack(0))
            return True
        else:
            _fail(stream, f"expected DATA or DONE, got {ident!r}")
            return False
