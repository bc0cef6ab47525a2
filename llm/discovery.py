"""What a local OpenAI-compatible server says about itself: its kind, context window, ``n`` and images.

Asked once per client, before its first call, from the endpoints each server documents:

* llama.cpp: ``GET /props`` (``default_generation_settings.n_ctx``, ``modalities.vision``); it also
  tokenizes (``POST /apply-template`` then ``POST /tokenize``), so prompts are counted exactly;
* Ollama: ``POST /api/show`` (``parameters`` ``num_ctx``, ``capabilities``), ``GET /api/ps`` (the
  window of the loaded model) and ``model_info`` ``*.context_length`` (the model's own, when nothing
  smaller is set);
* vLLM: ``GET /v1/models`` (``data[].max_model_len``);
* LM Studio: ``GET /api/v0/models/{model}`` (``loaded_context_length``, ``max_context_length``, ``type``).

Each server's kind also says how it takes an answer's shape (``--llm-structured on``): llama.cpp a JSON schema
(``json_schema``) and a GBNF grammar (``grammar``); vLLM a JSON schema (``response_format``) and a regular
expression (``structured_outputs``, which replaced ``guided_regex`` in 0.10.2; ``GET /version`` says which);
Ollama from 0.5.0 (``GET /api/version``) and LM Studio a JSON schema (``response_format``, which Ollama
turns into its ``format``), no grammar.

Nothing found is not an error: the profile then says ``unknown`` and the client learns ``n`` from the
answers, as before; a server that is not known is sent no shape. ``n`` is used natively only where the server
honours it *and* counts its tokens: llama.cpp with several slots answers ``n`` but reports one sample's output
tokens for all of them, so it gets one request per sample; Ollama ignores ``n``.
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
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")
#: The vLLM release whose requests carry a pattern in ``structured_outputs`` (``guided_regex`` before; vLLM 0.12
#: dropped it, and ignores a field it does not know, so the old name would go unheeded).
VLLM_STRUCTURED_OUTPUTS = (0, 10, 2)
#: The Ollama release that takes a JSON schema as ``format`` (and as ``response_format`` on ``/v1``).
OLLAMA_JSON_SCHEMA = (0, 5, 0)


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
        json_field: The request field that holds a JSON schema for the answer, or None: the server takes none.
        pattern_field: The request field that holds a pattern for the answer's text (``grammar``: GBNF;
            ``structured_outputs`` or ``guided_regex``: a regular expression), or None: it takes none.
    """

    server: str = "unknown"
    context_window: int | None = None
    context_source: str = ""
    native_n: bool | None = None
    images: bool | None = None
    tokenizer: str = "o200k estimate"
    json_field: str | None = None
    pattern_field: str | None = None

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


def version_of(text: object) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` of a version string (``0.11.0``, ``v0.5.1-rc0``), or None."""
    match = _VERSION.match(str(text or "").strip())
    return (int(match[1]), int(match[2]), int(match[3] or 0)) if match else None


async def _version(http: Http, url: str) -> tuple[int, int, int] | None:
    """The version a server's ``GET url`` reports as ``{"version": ...}``, or None when it says none."""
    try:
        answer = await _json(http, "GET", url)
    except (OSError, ValueError):
        return None
    return version_of(answer.get("version")) if isinstance(answer, dict) else None


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
                         "server", json_field="json_schema", pattern_field="grammar")


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
    version = await _version(http, f"{root}/api/version")
    schemas = version is None or version >= OLLAMA_JSON_SCHEMA
    return ServerProfile("ollama", window, source, False, images, json_field="response_format" if schemas else None)


async def _vllm(http: Http, root: str, base: str, model: str) -> ServerProfile | None:
    listed = await _json(http, "GET", f"{base}/models")
    rows = listed.get("data") if isinstance(listed, dict) else None
    if not isinstance(rows, list):
        return None
    with_len = [r for r in rows if isinstance(r, dict) and r.get("max_model_len")]
    row = next((r for r in with_len if r.get("id") == model), with_len[0] if with_len else None)
    if row is None:
        return None
    version = await _version(http, f"{root}/version")
    pattern = "guided_regex" if version is not None and version < VLLM_STRUCTURED_OUTPUTS else "structured_outputs"
    return ServerProfile("vllm", int(row["max_model_len"]), "GET /v1/models data[].max_model_len", True, None,
                         json_field="response_format", pattern_field=pattern)


async def _lmstudio(http: Http, root: str, base: str, model: str) -> ServerProfile | None:
    row = await _json(http, "GET", f"{root}/api/v0/models/{model}")
    if not isinstance(row, dict) or not ({"max_context_length", "loaded_context_length"} & row.keys()):
        return None
    key = "loaded_context_length" if row.get("loaded_context_length") else "max_context_length"
    images = row.get("type") == "vlm" if row.get("type") else None
    return ServerProfile("lmstudio", int(row[key]), f"GET /api/v0/models/{{model}} {key}", None, images,
                         json_field="response_format")
