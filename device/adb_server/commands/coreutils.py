"""Shell builtins and the coreutils the adb clients use: echo, exit, cd, sleep, cat, rm, ls, ..."""

from __future__ import annotations

from latent_agent.device.adb_server.commands.registry import Registry
from latent_agent.device.adb_server.shell import ExitShell, Invocation
from latent_agent.device.adb_server.vfs import VfsError

COMMANDS = Registry()
command = COMMANDS.command


@command("echo")
def _echo(inv: Invocation) -> int:
    args = inv.argv[1:]
    newline = True
    if args and args[0] == "-n":
        newline, args = False, args[1:]
    inv.out(" ".join(args) + ("\n" if newline else ""))
    return 0


@command("true", ":")
def _true(inv: Invocation) -> int:
    return 0


@command("false")
def _false(inv: Invocation) -> int:
    return 1


@command("exit")
def _exit(inv: Invocation) -> int:
    arg = inv.argv[1] if len(inv.argv) > 1 else str(inv.session.status)
    if not arg.lstrip("-").isdigit():
        return inv.fail(f"{arg}: bad number", 2)
    raise ExitShell(int(arg) & 0xFF)


@command("cd")
def _cd(inv: Invocation) -> int:
    target = inv.session.path(inv.argv[1] if len(inv.argv) > 1 else inv.session.vars.get("HOME", "/"))
    st = inv.phone.vfs.stat(target)
    if st is None or not st.is_dir:
        return inv.fail(f"{inv.argv[1] if len(inv.argv) > 1 else target}: No such file or directory", 2)
    inv.session.cwd = target
    return 0


@command("pwd")
def _pwd(inv: Invocation) -> int:
    inv.out(inv.session.cwd + "\n")
    return 0


@command("id")
def _id(inv: Invocation) -> int:
    inv.out("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1015(sdcard_rw) "
            "context=u:r:shell:s0\n")
    return 0


@command("whoami")
def _whoami(inv: Invocation) -> int:
    inv.out("shell\n")
    return 0


@command("sleep")
def _sleep(inv: Invocation) -> int:
    try:
        seconds = float(inv.argv[1]) if len(inv.argv) > 1 else -1.0
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        return inv.fail("usage: sleep SECONDS")
    # Wakes early when the session is cancelled, so shutdown never waits on a sleep.
    if inv.session.cancelled.wait(seconds):
        return 130
    return 0


@command("cat")
def _cat(inv: Invocation) -> int:
    files = [a for a in inv.argv[1:] if a != "-"] if len(inv.argv) > 1 else []
    if not files:
        inv.out(inv.stdin)
        return 0
    status = 0
    for f in files:
        try:
            inv.out(inv.phone.vfs.read(inv.session.path(f)))
        except VfsError as exc:
            status = inv.fail(f"{f}: {exc}")
    return status


@command("rm")
def _rm(inv: Invocation) -> int:
    force = recursive = False
    paths: list[str] = []
    for a in inv.argv[1:]:
        if a.startswith("-") and len(a) > 1 and paths == []:
            force |= "f" in a
            recursive |= "r" in a or "R" in a
        else:
            paths.append(a)
    if not paths:
        return 0 if force else inv.fail("Needs 1 argument")
    status = 0
    for p in paths:
        try:
            inv.phone.vfs.remove(inv.session.path(p), recursive=recursive)
        except VfsError as exc:
            if not (force and inv.phone.vfs.stat(inv.session.path(p)) is None):
                status = inv.fail(f"{p}: {exc}")
    return status


@command("mkdir")
def _mkdir(inv: Invocation) -> int:
    parents = "-p" in inv.argv[1:]
    status = 0
    for p in (a for a in inv.argv[1:] if a != "-p"):
        try:
            inv.phone.vfs.mkdir(inv.session.path(p), parents=parents)
        except VfsError as exc:
            status = inv.fail(f"{p}: {exc}")
    return status


@command("touch")
def _touch(inv: Invocation) -> int:
    status = 0
    for p in inv.argv[1:]:
        path = inv.session.path(p)
        try:
            old = inv.phone.vfs.read(path) if inv.phone.vfs.stat(path) is not None else b""
            inv.phone.vfs.write(path, old)
        except VfsError as exc:
            status = inv.fail(f"'{p}': {exc}")
    return status


@command("ls")
def _ls(inv: Invocation) -> int:
    paths = [a for a in inv.argv[1:] if not a.startswith("-")] or ["."]
    show_all = any(a.startswith("-") and "a" in a for a in inv.argv[1:])
    status = 0
    for p in paths:
        path = inv.session.path(p)
        st = inv.phone.vfs.stat(path)
        if st is None:
            status = inv.fail(f"{p}: No such file or directory")
        elif not st.is_dir:
            inv.out(p + "\n")
        else:
            names = [n for n, _ in inv.phone.vfs.listdir(path) if show_all or not n.startswith(".")]
            inv.out("".join(n + "\n" for n in names))
    return status
