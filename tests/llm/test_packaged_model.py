"""The packaged model: slices found through importlib, assembled atomically, refused unless the hash matches;
and the ``llamacpp`` spec and server flags (no server started here: see test_llamacpp_real.py)."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import pytest

from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.errors import ConfigError
from latent_agent.invocation import install_command
from latent_agent.llm import packaged_model
from latent_agent.llm.llamacpp.options import DEFAULT_CTX, ServerOptions
from latent_agent.llm.spec import load_client

SLICES = (b"GGUF-head-", b"middle-", b"tail")


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """Three importable slice packages on sys.path, and the hash of their concatenation pinned."""
    names = tuple(f"fake_model_part{i}" for i in range(1, len(SLICES) + 1))
    for number, (name, data) in enumerate(zip(names, SLICES, strict=True), start=1):
        package = tmp_path / "site" / name
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{number:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"".join(SLICES)
    monkeypatch.setattr(packaged_model, "PART_PACKAGES", names)
    monkeypatch.setattr(packaged_model, "PACKAGED_SHA256", hashlib.sha256(whole).hexdigest())
    return whole


def test_the_slices_are_assembled_in_order_into_the_cache(fake_parts: bytes, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("LATENT_AGENT_MODEL_DIR", raising=False)
    path = packaged_model.packaged_model_path()
    assert path == tmp_path / "cache" / "latent-agent" / "models" / packaged_model.FILE_NAME
    assert path.read_bytes() == fake_parts
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    # A second call checks the cached file and uses it.
    before = path.stat().st_mtime_ns
    assert packaged_model.packaged_model_path() == path and path.stat().st_mtime_ns == before


def test_a_cached_file_that_does_not_match_is_assembled_anew(fake_parts: bytes, tmp_path: Path) -> None:
    target = tmp_path / packaged_model.FILE_NAME
    target.write_bytes(b"X" * len(fake_parts))  # same size, other content
    assert packaged_model.packaged_model_path(tmp_path).read_bytes() == fake_parts


def test_slices_that_do_not_give_the_pinned_hash_are_refused(fake_parts: bytes, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(packaged_model, "PACKAGED_SHA256", "0" * 64)
    cache = tmp_path / "cache"
    with pytest.raises(ConfigError, match=r"does not match its pinned hash: .* expected 0{64}; reinstall") as raised:
        packaged_model.packaged_model_path(cache)
    assert "\n" not in str(raised.value)
    assert list(cache.iterdir()) == []  # nothing kept


def test_a_missing_slice_is_named_with_the_install_command(fake_parts: bytes, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(packaged_model, "PART_PACKAGES", (*packaged_model.PART_PACKAGES, "fake_model_part_absent"))
    with pytest.raises(ConfigError, match=r"not installed: missing fake-model-part-absent ") as raised:
        packaged_model.packaged_model_path(tmp_path)
    assert str(raised.value).endswith(f"install it with: {install_command('model')}")  # where the user is


# -- the spec and its flags -------------------------------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_llm_options(parser)
    return parser.parse_args(list(argv))


def test_server_flags_travel_in_the_options() -> None:
    args = parse("--llm", "llamacpp:m.gguf", "--llm-ctx", "4096", "--llm-threads", "3", "--llm-parallel", "2",
                 "--llm-gpu-layers", "10")
    assert llm_options(args).server_options() == ServerOptions(ctx=4096, threads=3, gpu_layers=10, parallel=2)
    assert llm_options(parse("--llm", "llamacpp:m.gguf")).server_options() == ServerOptions(ctx=DEFAULT_CTX)
    assert ServerOptions().thread_count >= 1
    assert ServerOptions(threads=3).thread_count == 3


def test_the_default_threads_leave_one_core_to_the_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    for count, threads in ((1, 1), (2, 1), (8, 7)):
        monkeypatch.setattr("os.sched_getaffinity", lambda pid, count=count: set(range(count)))
        assert ServerOptions().thread_count == threads


def test_server_flags_with_a_provider_that_starts_no_server_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"--llm-ctx, --llm-parallel: only for --llm llamacpp"):
        llm_options(parse("--llm", "openai:qwen@http://127.0.0.1:1/v1", "--llm-ctx", "4096",
                               "--llm-parallel", "2")).open()


@pytest.mark.parametrize(("argv", "message"), [
    (("--llm-ctx", "100"), "--llm-ctx must be at least 256"),
    (("--llm-threads", "0"), "--llm-threads must be >= 1"),
    (("--llm-parallel", "0"), "--llm-parallel must be >= 1"),
    (("--llm-gpu-layers", "-1"), "--llm-gpu-layers must be >= 0"),
])
def test_bad_server_flags_are_one_clear_line(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        llm_options(parse("--llm", "llamacpp:m.gguf", *argv)).server_options()


def test_a_missing_model_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no such model file .*nope.gguf.*llamacpp:qwen2.5-coder-0.5b"):
        load_client(f"llamacpp:{tmp_path / 'nope.gguf'}")


def test_llamacpp_takes_no_url() -> None:
    with pytest.raises(ConfigError, match="starts its own server; for a running one use --llm openai:"):
        load_client("llamacpp:m.gguf@http://127.0.0.1:8080/v1")
