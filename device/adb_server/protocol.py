"""The adb transport wire format: 24-byte message headers and their payloads.

Every message is ``command, arg0, arg1, data_length, data_check, magic`` as six
little-endian uint32 followed by ``data_length`` payload bytes. ``magic`` is
``command ^ 0xffffffff``; ``data_check`` is the byte sum of the payload for
protocol versions before :data:`A_VERSION_SKIP_CHECKSUM` and zero after (the
host ignores it then), exactly as adbd does.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from latent_agent.errors import DeviceConnectionError


def _cmd(name: bytes) -> int:
    return int(struct.unpack("<I", name)[0])


A_CNXN = _cmd(b"CNXN")
A_OPEN = _cmd(b"OPEN")
A_OKAY = _cmd(b"OKAY")
A_WRTE = _cmd(b"WRTE")
A_CLSE = _cmd(b"CLSE")
A_AUTH = _cmd(b"AUTH")
A_STLS = _cmd(b"STLS")
A_SYNC = _cmd(b"SYNC")

#: Oldest protocol version understood; payload checksums are mandatory there.
A_VERSION_MIN = 0x01000000
#: From this version on, neither side computes or checks payload checksums.
A_VERSION_SKIP_CHECKSUM = 0x01000001
#: The version this device speaks (the newest one adb knows).
A_VERSION = 0x01000001

#: Largest payload before the version negotiation, and the largest we accept.
MAX_PAYLOAD_V1 = 4 * 1024
MAX_PAYLOAD = 1024 * 1024

HEADER = struct.Struct("<6I")
COMMAND_NAMES = {A_CNXN: "CNXN", A_OPEN: "OPEN", A_OKAY: "OKAY", A_WRTE: "WRTE", A_CLSE: "CLSE",
                 A_AUTH: "AUTH", A_STLS: "STLS", A_SYNC: "SYNC"}


class ProtocolError(DeviceConnectionError):
    """A peer sent bytes that are not a valid adb message; the connection is dropped."""


def checksum(data: bytes) -> int:
    """The legacy ``data_check``: the sum of the payload bytes modulo 2**32."""
    return sum(data) & 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Message:
    """One adb message.

    Attributes:
        command: One of the ``A_*`` constants.
        arg0: First argument (meaning depends on the command; the sender's stream id for streams).
        arg1: Second argument (the receiver's stream id for streams).
        data: The payload.
    """

    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    @property
    def name(self) -> str:
        return COMMAND_NAMES.get(self.command, f"0x{self.command:08x}")

    def encode(self, version: int = A_VERSION_MIN) -> bytes:
        """Header and payload as sent to a peer speaking ``version``."""
        check = checksum(self.data) if version < A_VERSION_SKIP_CHECKSUM else 0
        header = HEADER.pack(self.command, self.arg0, self.arg1, len(self.data), check,
                             self.command ^ 0xFFFFFFFF)
        return header + self.data


@dataclass(frozen=True, slots=True)
class Header:
    """A decoded message header whose payload has not been read yet."""

    command: int
    arg0: int
    arg1: int
    length: int
    check: int


def decode_header(raw: bytes, *, max_payload: int = MAX_PAYLOAD) -> Header:
    """Check and decode a 24-byte header.

    Raises:
        ProtocolError: On a wrong size, a magic that does not match the command,
            an unknown command or an oversized payload.
    """
    if len(raw) != HEADER.size:
        raise ProtocolError(f"adb header must be {HEADER.size} bytes, got {len(raw)}")
    command, arg0, arg1, length, check, magic = HEADER.unpack(raw)
    if magic != command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic 0x{magic:08x} for command 0x{command:08x}")
    if command not in COMMAND_NAMES:
        raise ProtocolError(f"unknown adb command 0x{command:08x}")
    if length > max_payload:
        raise ProtocolError(f"payload of {length} bytes exceeds the maximum {max_payload}")
    return Header(command, arg0, arg1, length, check)


def verify_payload(header: Header, data: bytes, version: int) -> None:
    """Check the payload checksum when the negotiated version still uses one.

    Raises:
        ProtocolError: If the checksum does not match.
    """
    if version < A_VERSION_SKIP_CHECKSUM and header.check != checksum(data):
        raise ProtocolError(f"payload checksum mismatch (got 0x{header.check:08x}, "
                            f"computed 0x{checksum(data):08x})")


def connect_banner(props: dict[str, str], features: tuple[str, ...]) -> bytes:
    """The CNXN payload a device sends: ``device::key=value;...;features=a,b``."""
    fields = [f"{k}={v}" for k, v in props.items()]
    fields.append("features=" + ",".join(features))
    return ("device::" + ";".join(fields)).encode()
