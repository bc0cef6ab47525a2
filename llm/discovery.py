"""What a local OpenAI-compatible server says about itself: its kind, context window, ``n`` and images.

Asked once per client, before its first call, from the endpoints each server documents:

* llama.cpp: ``GET /props`` (``default_generation_settings.n_ctx``, ``modalities.vision``); it also
  tokenizes (``POST /apply-template`` then ``POST /tokenize``), so prompts are counted exactly;
* Ollama: ``POST /api/show`` (``parameters`` ``num_ctx``, ``capabilities``), ``GET /api/ps`` (the
  window of the loaded model) and ``model_info`` ``*.context_length`` (the model's own, when nothing
  smaller is set);
* vLLM: ``GET /v1/models`` (``data[].max_model_len``);
* LM Studio: ``GET /api/v0/models/{model}`` (``loaded_context_length``, ``max_context_length``, ``type``).

Nothing found is not an error: the profile then says ``unknown`` and the client learns ``n`` from the
answers, as before. ``n`` is used natively only where the server honours it *and* counts its tokens:
llama.cpp with several slots answers ``n`` but reports one sample's output tokens for all of them, so
it gets one request per sample; Ollama ignores ``n``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, fields
from typing import Any

from latent_agent import codec

log = logging.getLogger("latent_agent.llm")

#: How long each discovery request may take (a local server answers in milliseconds).
PROBE_TIMEOUT_S = 5.0
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ServerProfile:
    """What discovery found.

    Attributes:
        server: ``llama.cpp``, ``ollama``, ``vllm``, ``lmstudio`` or ``unknown``.
        context_window: Tokens one request may hold (prompt and answer), or None when not said.
        context_source: Where the window was read (endpoint and field), for records and messages.
        native_n: Whether ``n`` samples are asked in one request (None: not known; learnt from answers).
        images: Whether the model takes images (None: not said).
        tokenizer: ``server`` (prompts counted by the server) or ``o200k estimate``.
    """

    server: str = "unknown"
    context_window: int | None = None
    context_source: str = ""
    native_n: bool | None = None
    images: bool | None = None
    tokenizer: str = "o200k estimate"

    def to_json(self) -> dict[str, object]:
        """The record a trajectory header keeps."""
        out: dict[str, object] = codec.encode(self)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ServerProfile:
        """Inverse of :meth:`to_json` (unknown keys ignored: a newer server record may say more; missing ones
        defaulted).

        Raises:
            codec.DecodeError: A value is not of its field's type.
        """
        known = {f.name for f in fields(cls)}
        return codec.decode(cls, {k: v for k, v in data.items() if k in known})


def server_root(base_url: str) -> str:
    """The server's root URL from its OpenAI base URL (``http://h:p/v1`` -> ``http://h:p``)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


class Http:
    """JSON requests to one server, off the event loop (stdlib only: no tie to an SDK's HTTP library).

    Args:
        headers: Sent with every request (the bearer key of a server that wants one).
        timeout_s: Deadline of each request.
    """

    def __init__(self, headers: dict[str, str] | None = None, timeout_s: float = PROBE_TIMEOUT_S) -> None:
        self.headers = dict(headers or {})
        self.timeout_s = timeout_s

    async def json(self, method: str, url: str, body: object = None) -> Any:
        """The decoded answer to ``method url`` (with ``body`` as JSON), or None unless it is a 200.

        Raises:
            OSError: The server cannot be reached or does not answer in time.
            ValueError: The answer is not JSON.
        """
        return await asyncio.to_thread(self._json, method, url, body)

    def _json(self, method: str, url: str, body: object) -> Any:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = {**self.headers, **({"Content-Type": "application/json"} if data is not None else {})}
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:
                return json.loads(answer.read()) if answer.status == 200 else None
        except urllib.error.HTTPError:
            return None


async def discover(base_url: str, model: str, *, headers: dict[str, str] | None = None) -> ServerProfile:
    """Ask the server at ``base_url`` what it is (see the module docstring); never raises."""
    root = server_root(base_url)
    http = Http(headers)
    for probe in (_llamacpp, _ollama, _vllm, _lmstudio):
        try:
            found = await probe(http, root, base_url.rstrip("/"), model)
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            log.debug("discovery %s at %s: %s", probe.__name__, root, exc)
            continue
        if found is not None:
            log.info("discovered %s at %s: %s", found.server, root, found)
            return found
    return ServerProfile()


async def _json(http: Http, method: str, url: str, body: object = None) -> Any:
    return await http.json(method, url, body)


async def _llamacpp(http: Http, root: str, base: str, model: str) -> ServerProfile | None:
    props = await _json(http, "GET", f"{root}/props")
    if not isinstance(props, dict) or "default_generation_settings" not in props:
        return None
    settings = props["default_generation_settings"]
    window = settings.get("n_ctx") if isinstance(settings, dict) else None
    source = "GET /props default_generation_settings.n_ctx"
    if window is None and props.get("n_ctx") is not None:
        window, source = props["n_ctx"], "GET /props n_ctx"
    modalities = props.get("modalities")
    vision = bool(modalities.get("vision")) if isinstance(modalities, dict) else None
    return ServerProfile("llama.cpp", int(window) if window else None, source if window else "", False, vision,
                         "server")


async def _ollama(http: Http, root: str, base: str, model: str) -> ServerProfile | None:
    shown = await _json(http, "POST", f"{root}/api/show", {"model": model})
    if not isinstance(shown, dict) or not ({"model_info", "parameters", "capabilities"} & shown.keys()):
        return None
    window: int | None = None
    source = ""
    match = _NUM_CTX.search(str(shown.get("parameters") or ""))
    if match:
        window, source = int(match.group(1)), "POST /api/show parameters num_ctx"
    if window is None:
        running = await _json(http, "GET", f"{root}/api/ps")
        for entry in (running or {}).get("models", []) if isinstance(running, dict) else []:
            if model in (entry.get("name"), entry.get("model")) and entry.get("context_length"):
                window, source = int(entry["context_length"]), "GET /api/ps context_length"
    if window is None:
        info = shown.get("model_info") or {}
        for key, value in info.items():
            if key.endswith(".context_length"):
                window = int(value)
                source = f"POST /api/show model_info {key} (the model's own; the server may use less)"
    caps = shown.get("capabilities")
    images = "vision" in caps if isinstance(caps, list) else None
    return ServerProfile("ollama", window, source, False, images)


async def _vllm(http: Http, root: str, base: str, model: str) -> ServerProfile | None:
    listed = await _json(http, "GET", f"{base}/models")
    rows = listed.get("data") if isinstance(listed, dict) else None
    if not isinstance(rows, list):
        return None
    with_len = [r for r in rows if isinstance(r, dict) and r.get("max_model_len")]
    row = next((r for r in with_len if r.get("id") == model), with_len[0] if with_len else None)
    if row is None:
        return None
    return ServerProfile("vllm", int(row["max_model_len"]), "GET /v1/models data[].max_model_len", True, None)


async def _lmstudio(http: Http, root: str, base: str, model: str) -> ServerProfile | None:
    row = await _json(http, "GET", f"{root}/api/v0/models/{model}")
    if not isinstance(row, dict) or not ({"max_context_length", "loaded_context_length"} & row.keys()):
        return None
    key = "loaded_context_length" if row.get("loaded_context_length") else "max_context_length"
    images = row.get("type") == "vlm" if row.get("type") else None
    return ServerProfile("lmstudio", int(row[key]), f"GET /api/v0/models/{{model}} {key}", None, images)
