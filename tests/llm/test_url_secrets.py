"""Issue 23 item 7: a base URL's password and secret query values are masked like API keys."""

from __future__ import annotations

import json
from pathlib import Path

from latent_agent.agent.trajectory import TRAJECTORY_FILE
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.secrets import MASK, redact, redact_url_credentials, register_url, url_secrets
from tests.cli.helpers import cli, dead_port, one_line

from .conftest import API_KEY

PASSWORD = "pw-9d41c7e0-hunter2"  # test values, distinctive enough to grep for
QUERY_KEY = "qk-5b8e1f33-query-key"
TOKEN = "tk-07aa41d9-token"
SECRETS = (PASSWORD, QUERY_KEY, TOKEN)


def _url(port: int) -> str:
    return f"http://user:{PASSWORD}@127.0.0.1:{port}/v1?key={QUERY_KEY}&token={TOKEN}&model=kept"


def _clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} in {text[:2000]}"


def test_url_secrets_finds_the_password_and_secret_query_values() -> None:
    assert url_secrets("http://u:p%40ss@h/v1?key=k1&api_key=k2&apiKey=k3&access_token=t&x=1") == [
        "p%40ss", "p@ss", "k1", "k2", "k3", "t"]
    assert url_secrets("https://ghp_tokenAsUser@h/v1") == ["ghp_tokenAsUser"]
    assert url_secrets("http://127.0.0.1:8000/v1") == []
    assert url_secrets("http://[::1") == []  # unparsable: nothing, no exception


def test_redact_masks_url_credentials_registered_or_not() -> None:
    # Unregistered: masked where they stand in a URL, the rest of the URL kept.
    assert redact_url_credentials("see http://me:short@h:1/v1?key=abc&model=m and x") == \
        f"see http://me:{MASK}@h:1/v1?key={MASK}&model=m and x"
    assert redact("https://tok-as-user@h/v1") == f"https://{MASK}@h/v1"
    # Registered (long enough): masked anywhere, e.g. an error quoting the password alone.
    register_url(f"http://u:{PASSWORD}@h/v1")
    assert PASSWORD not in redact(f"server said: bad password {PASSWORD}")
    # Text already JSON-encoded stays valid JSON.
    encoded = json.dumps({"a": 'http://h/?key=abc"def', "b": 'api_key: x"y'})
    assert json.loads(redact(encoded)) == {"a": f"http://h/?key={MASK}\"def", "b": f"api_key: {MASK}\"y"}


def test_no_url_credential_in_the_trajectory_page_or_error_line(tmp_path: Path) -> None:
    out = tmp_path / "episode"
    done = cli("run", "Turn off data roaming", "--device", "sim", "--llm", "openai:gpt-4o", "--llm-base-url",
               _url(dead_port()), "--llm-timeout", "1", "--max-steps", "1", "--no-screenshots", "--out", str(out))
    assert done.returncode == 3, done.stderr  # the LLM is unreachable: a recorded stop, not a crash
    _clean(done.stdout + done.stderr)
    trajectory = (out / TRAJECTORY_FILE).read_text(encoding="utf-8")
    records = [json.loads(line) for line in trajectory.splitlines()]
    assert records[0]["record"] == "episode" and records[-1]["record"] == "end"
    assert "cannot connect to http://user:[REDACTED]@127.0.0.1" in records[-1]["detail"]
    _clean(trajectory)
    shown = cli("show", str(out))
    assert shown.returncode == 0, shown.stderr
    _clean((out / "episode.html").read_text(encoding="utf-8"))

    pinged = cli("llm", "ping", "--llm", f"openai:gpt-4o@{_url(dead_port())}", "--llm-timeout", "1")
    assert pinged.returncode == 3
    line = one_line(pinged.stderr)
    assert f"http://user:{MASK}@127.0.0.1" in line and f"key={MASK}&token={MASK}&model=kept" in line
    _clean(pinged.stdout + pinged.stderr)


def test_no_url_credential_in_a_cassette(tmp_path: Path) -> None:
    # The prompt and the answer quote a URL with credentials (an echoing proxy's answer). The base URL itself
    # carries none here: the SDK would send its user:password as Basic auth, which the stand-in refuses.
    standin = OpenAIStandIn(ScriptedModel(responder=lambda r: f"pong from {_url(1)}"), api_key=API_KEY)
    cassette = tmp_path / "cassette.jsonl"
    with standin:
        done = cli("llm", "ping", "--llm", "openai:gpt-4o", "--llm-base-url",
                   f"{standin.url}/v1", "--api-key", API_KEY,
                   "--llm-record", str(cassette), "--prompt", f"ping {_url(2)}")
    assert done.returncode == 0, done.stderr
    recorded = cassette.read_text(encoding="utf-8")
    assert "pong from http://user:" in recorded and len(recorded.splitlines()) == 2
    _clean(recorded)
    _clean(done.stdout + done.stderr)

