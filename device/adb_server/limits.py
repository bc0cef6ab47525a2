"""What a served endpoint (the adb server, the emulator console) grants a peer before trusting it.

Anything on the machine can connect to a served phone: a console that read a line of any length before
authentication held 200 MB for one peer, and 400 connections that never said a word were kept forever.
Each endpoint takes a :class:`ConnectionLimits` and enforces it on every connection.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """Bounds on the peers of one endpoint.

    Attributes:
        max_connections: Connections served at once; one more is closed as soon as it is accepted.
        handshake_s: Seconds a new connection has to introduce itself (adb: its CNXN; console: each line
            before ``auth``); a peer silent for longer is dropped.
        idle_s: Seconds an authenticated console session may stay silent (a real adb host's connection
            idles between commands for as long as it likes, so the adb server has no such limit).
        max_line: Longest console line in bytes; a longer one ends the session.
    """

    max_connections: int = 64
    handshake_s: float = 10.0
    idle_s: float = 300.0
    max_line: int = 4096
