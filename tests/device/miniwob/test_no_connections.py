"""A MiniWoB++ page opens no connection: not a request, a WebSocket, a navigation, WebRTC or WebTransport
(issue 29 item 5).

Playwright's routes abort every request a page makes but its own files; they never see a WebSocket, nor the
connection Chromium opens ahead of a navigation, nor WebRTC's and WebTransport's UDP. A page that tries each
toward a listener on this machine must leave the listener with nothing.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from latent_agent.device.miniwob.browser import PageShape, acquire_page
from latent_agent.errors import ConfigError, DeviceError
from tests.listener import listening


def _page(listener_port: int, udp_port: int) -> str:
    target = f"127.0.0.1:{listener_port}"
    return f"""<!doctype html><title>t</title><script>
const tries = [
  () => new WebSocket('ws://{target}/socket'),
  () => new WebTransport('https://{target}/transport'),
  () => new EventSource('http://{target}/events'),
  () => fetch('http://{target}/fetch'),
  () => navigator.sendBeacon('http://{target}/beacon', 'x'),
  () => {{ const i = new Image(); i.src = 'http://{target}/image'; }},
  () => {{
    const pc = new RTCPeerConnection({{iceServers: [{{urls: 'stun:127.0.0.1:{udp_port}'}},
      {{urls: 'turn:{target}?transport=tcp', username: 'u', credential: 'c'}}]}});
    pc.createDataChannel('d');
    pc.createOffer().then(offer => pc.setLocalDescription(offer));
  }},
];
for (const t of tries) {{ try {{ t(); }} catch (e) {{}} }}
setTimeout(() => {{ location.href = 'http://{target}/navigated'; }}, 500);
</script>"""


def test_a_page_reaches_no_listener_on_this_machine(tmp_path: Path) -> None:
    with listening(udp=True) as listener:
        page_file = tmp_path / "task.html"
        page_file.write_text(_page(listener.port, listener.udp_port), encoding="utf-8")
        try:
            page = acquire_page(PageShape(160, 210, 1), tmp_path)
        except (ConfigError, DeviceError) as exc:
            pytest.skip(f"no browser for MiniWoB++ here: {exc}")
        try:
            url = page.url_of(page_file)
            page.run(lambda p: p.goto(url, wait_until="load"))
            time.sleep(3)  # the navigation at 0.5 s, ICE gathering, a socket's handshake
        finally:
            page.close()
        assert listener.seen() == []
        blocked = " ".join(page.blocked)
        assert f"ws://127.0.0.1:{listener.port}/socket" in blocked  # the socket was seen, and closed here
        assert "/navigated" in blocked and "/fetch" in blocked
