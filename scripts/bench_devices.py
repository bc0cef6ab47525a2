"""Per-step cost of each device backend path against the simulated phone.

Measures hierarchy dump, tap and screenshot on:

* ``SimDevice`` called directly (the in-process simulator);
* ``AdbDevice`` through the real adb server (from the adbutils wheel, started on a
  free port and killed at the end) and ``latent-agent sim serve``'s protocol server;
* ``U2Device``'s adb-side calls (foreground app) on the same path.

Usage: ``python scripts/bench_devices.py [--repeat N]``; prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    fn()  # warm-up
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1000, max(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    import adbutils.binaries

    from latent_agent.device.adb import AdbDevice
    from latent_agent.device.adb_server import AdbServer
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.device.u2 import U2Device

    adb = Path(adbutils.binaries.__file__).parent / "adb"
    port = _free_port()
    os.environ.update(ANDROID_ADB_SERVER_PORT=str(port), ADB_MDNS="0", ADB_USB="0")
    subprocess.run([str(adb), "-P", str(port), "start-server"], check=True, capture_output=True, timeout=30)
    rows: list[tuple[str, str, float, float]] = []
    try:
        sim = SimDevice(seed=0)
        rows += [("SimDevice (in process)", "hierarchy", *_time(sim.hierarchy, args.repeat)),
                 ("SimDevice (in process)", "tap", *_time(lambda: sim.tap(540, 1200), args.repeat)),
                 ("SimDevice (in process)", "screenshot", *_time(sim.screenshot, args.repeat))]
        served = SimDevice(seed=0)
        with AdbServer(served) as server:
            subprocess.run([str(adb), "-P", str(port), "connect", server.serial], check=True,
                           capture_output=True, timeout=30)
            dev = AdbDevice(server.serial)
            rows += [("AdbDevice via adb server + sim serve", "hierarchy (uiautomator dump + cat)",
                      *_time(dev.hierarchy, args.repeat)),
                     ("AdbDevice via adb server + sim serve", "tap (input tap)",
                      *_time(lambda: dev.tap(540, 1200), args.repeat)),
                     ("AdbDevice via adb server + sim serve", "screenshot (screencap -p)",
                      *_time(dev.screenshot, args.repeat)),
                     ("AdbDevice via adb server + sim serve", "input_text 20 ASCII chars",
                      *_time(lambda: dev.input_text("hello world; $(x) %s"), args.repeat))]
            u2 = U2Device(server.serial)
            rows.append(("U2Device adb side", "foreground_package (dumpsys window)",
                         *_time(u2.foreground_package, args.repeat)))
            subprocess.run([str(adb), "-P", str(port), "disconnect", server.serial], capture_output=True,
                           timeout=30)
    finally:
        subprocess.run([str(adb), "-P", str(port), "kill-server"], capture_output=True, timeout=30)
    print(f"| backend path | step | median ms | max ms |  (n={args.repeat})")
    print("|---|---|---:|---:|")
    for path, step, med, worst in rows:
        print(f"| {path} | {step} | {med:.1f} | {worst:.1f} |")


if __name__ == "__main__":
    main()
