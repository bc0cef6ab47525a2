"""Images in requests: the Image type's checks, what records keep of it, and LLMCaller's messages and images."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from PIL import Image as PILImage

from latent_agent.agent.calls import LLMCaller, build_request
from latent_agent.agent.trajectory import (
    EpisodeHeader,
    LLMCall,
    StepRecord,
    TrajectoryWriter,
    read_trajectory,
)
from latent_agent.errors import LLMRequestError
from latent_agent.llm.images import Image, ImageInfo, describe_images, sniff_mime
from latent_agent.llm.scripted import ScriptedModel, render
from latent_agent.llm.types import CallOptions, GenerationRequest, Message, MessageInfo, sendable


def encode(width: int, height: int, fmt: str = "PNG", colour: tuple[int, int, int] = (20, 120, 220)) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), colour).save(out, format=fmt)
    return out.getvalue()


@pytest.fixture(scope="module")
def screenshot() -> Image:
    return Image(encode(1080, 2400), "image/png")


# -- the Image type ----------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")])
def test_an_image_reads_its_size_and_type(fmt: str, mime: str) -> None:
    data = encode(64, 48, fmt)
    image = Image(data, mime)
    assert (image.width, image.height, image.size_bytes) == (64, 48, len(data))
    assert sniff_mime(data) == mime and Image.from_bytes(data) == image


def test_a_type_the_bytes_contradict_is_refused() -> None:
    with pytest.raises(LLMRequestError, match="declared image/jpeg but its bytes are image/png"):
        Image(encode(8, 8), "image/jpeg")


@pytest.mark.parametrize(("data", "mime", "message"), [
    (b"", "image/png", "needs its encoded bytes"),
    (encode(8, 8, "GIF"), "image/gif", "image/gif' is not supported"),
    (b"hello, not an image", "image/png", "not a PNG, JPEG or WebP file"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "image/png", "unreadable image/png image"),
])
def test_bad_image_bytes_are_refused_in_one_line(data: bytes, mime: str, message: str) -> None:
    with pytest.raises(LLMRequestError, match=message) as raised:
        Image(data, mime)
    assert "\n" not in str(raised.value)


def test_from_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("words", encoding="utf-8")
    with pytest.raises(LLMRequestError, match=r"a\.txt: image bytes are not a PNG"):
        Image.from_file(tmp_path / "a.txt")
    with pytest.raises(LLMRequestError, match=r"missing\.png"):
        Image.from_file(tmp_path / "missing.png")


def test_info_keeps_no_pixels_and_describes_itself(screenshot: Image) -> None:
    info = screenshot.info()
    assert info == ImageInfo("image/png", 1080, 2400, screenshot.size_bytes, screenshot.sha256())
    assert info.describe() == f"1080x2400 PNG, {round(screenshot.size_bytes / 1024)} KB"
    assert ImageInfo.from_json(json.loads(json.dumps(info.to_json()))) == info
    assert describe_images([info]) == f"1 image {info.describe()}"
    assert describe_images([info, info]).startswith("2 images (1080x2400; 1080x2400), ")
    assert "data" not in repr(screenshot) and "1080x2400" in repr(screenshot)


def test_downscaling_keeps_the_aspect_and_format(screenshot: Image) -> None:
    small = screenshot.downscaled(1024)
    assert (small.width, small.height, small.mime) == (461, 1024, "image/png")
    assert screenshot.downscaled(4000) is screenshot
    jpeg = Image(encode(800, 400, "JPEG"), "image/jpeg").downscaled(200)
    assert (jpeg.width, jpeg.height, jpeg.mime) == (200, 100, "image/jpeg")
    with pytest.raises(LLMRequestError, match="max side must be >= 1"):
        screenshot.downscaled(0)


def test_a_palette_screenshot_is_filtered_not_sampled() -> None:
    # One-pixel black lines every other column: sampling keeps or drops whole lines, filtering greys them.
    lines = PILImage.new("RGB", (400, 200), (255, 255, 255))
    for x in range(0, 400, 2):
        for y in range(200):
            lines.putpixel((x, y), (0, 0, 0))
    out = io.BytesIO()
    lines.convert("P").save(out, format="PNG")
    small = Image(out.getvalue(), "image/png").downscaled(133)
    with PILImage.open(io.BytesIO(small.data)) as shown:
        assert shown.mode == "P"  # a palette PNG stays one
        grey = shown.convert("L").getpixel((40, 30))
    assert isinstance(grey, int) and 60 < grey < 200


# -- messages and serialised requests ------------------------------------------------------------


def test_only_user_messages_carry_images(screenshot: Image) -> None:
    with pytest.raises(LLMRequestError, match="only user messages may carry images, not a assistant"):
        Message("assistant", "I see", (screenshot,))
    with pytest.raises(LLMRequestError, match="tuple of Image"):
        Message("user", "look", [screenshot])  # type: ignore[arg-type]


def test_a_text_request_serialises_as_before() -> None:
    request = GenerationRequest(messages=(Message("system", "s"), Message("user", "u")))
    assert request.canonical() == (
        '{"max_output_tokens":null,"messages":[{"role":"system","text":"s"},{"role":"user","text":"u"}],'
        '"n":1,"prompt":null,"stop":[],"temperature":0.0}'
    )


def test_a_serialised_request_keeps_image_records_not_pixels(screenshot: Image) -> None:
    request = GenerationRequest(messages=(Message("user", "what is on screen?", (screenshot,)),))
    text = json.dumps(request.to_json())
    assert screenshot.sha256() in text and len(text) < 1000
    back = GenerationRequest.from_json(json.loads(text))
    (image,) = back.messages[0].images
    assert image == screenshot.info() and back.image_infos() == request.image_infos()
    assert back.canonical() == request.canonical()
    with pytest.raises(LLMRequestError, match="record without its pixels"):
        sendable(image)
    other = Image(encode(1080, 2400, colour=(0, 0, 0)), "image/png")
    assert GenerationRequest(messages=(Message("user", "what is on screen?", (other,)),)).canonical() \
        != request.canonical()


# -- the caller -----------------------------------------------------------------------------------


def test_ask_sends_earlier_turns_then_the_prompt_with_its_images(screenshot: Image) -> None:
    model = ScriptedModel(["first answer"])
    caller = LLMCaller(model, episode_id="ep")
    caller.begin(0)
    turns = (Message("system", "You operate a phone."), Message("user", "Goal: open Wi-Fi"),
             Message("assistant", "Tap Network"))
    asyncio.run(caller.ask("select", "Next step?", inputs={"goal": "open Wi-Fi"},
                           options=CallOptions(messages=turns, images=(screenshot,), image_max_side=1200)))
    (request,) = model.requests
    assert [m.role for m in request.messages] == ["system", "user", "assistant", "user"]
    assert request.messages[-1].text == "Next step?" and request.inputs == {"goal": "open Wi-Fi"}
    (sent,) = request.messages[-1].image_infos()
    assert (sent.width, sent.height) == (540, 1200)
    assert render(request).splitlines()[-1] == "user [image 540x1200 image/png]: Next step?"
    (call,) = caller.calls
    assert call.prompt == "Next step?" and call.images == (sent,)
    assert call.messages == tuple(MessageInfo(m.role, m.text) for m in turns)
    assert call.image_tokens == 2 * 258 and call.prompt_tokens >= call.image_tokens


def test_a_bare_prompt_stays_a_prompt() -> None:
    request = build_request("select", "Next step?", inputs={"goal": "g"})
    assert request.prompt == "Next step?" and request.messages == ()


def test_ask_refuses_what_is_not_a_message_or_image(screenshot: Image) -> None:
    with pytest.raises(LLMRequestError, match="messages must be Message"):
        build_request("select", "p", options=CallOptions(messages=({"role": "user", "text": "x"},)))  # type: ignore[arg-type]
    with pytest.raises(LLMRequestError, match="images must be Image"):
        build_request("select", "p", options=CallOptions(images=(screenshot.data,)))  # type: ignore[arg-type]


def test_a_failed_call_still_records_its_turns_and_images(screenshot: Image) -> None:
    model = ScriptedModel([LLMRequestError("refused")])
    caller = LLMCaller(model, episode_id="ep")
    with pytest.raises(LLMRequestError):
        asyncio.run(caller.ask("select", "p",
                               options=CallOptions(messages=(Message("user", "u"),), images=(screenshot,))))
    (call,) = caller.calls
    assert call.error and call.images == (screenshot.info(),) and call.messages == (MessageInfo("user", "u"),)


# -- trajectories ----------------------------------------------------------------------------------


def _header(calls: tuple[LLMCall, ...] = ()) -> EpisodeHeader:
    return EpisodeHeader(episode_id="ep", goal="g", normalized_goal="g", method="m", grounder="paper", llm="x",
                         device="sim", max_steps=3, started_at=0.0, setup_calls=calls)


def test_a_trajectory_keeps_image_records_and_turns(tmp_path: Path, screenshot: Image) -> None:
    call = LLMCall(purpose="select", prompt="Next?", outputs=("Tap",), image_tokens=2064,
                   messages=(MessageInfo("system", "sys"), MessageInfo("user", "earlier", (screenshot.info(),))),
                   images=(screenshot.info(),))
    writer = TrajectoryWriter(tmp_path / "ep", _header((call,)))
    writer.step(StepRecord(index=0, screen_file="screens/step_000.xml", screenshot_file=None,
                           foreground_package="p", description="d", state=None, selected_step="Tap",
                           calls=(call,)))
    writer.close()
    text = (tmp_path / "ep" / "trajectory.jsonl").read_text(encoding="utf-8")
    assert len(text) < 4000, "the image bytes must not be in the trajectory"
    t = read_trajectory(tmp_path / "ep")
    assert t.header.setup_calls == (call,) and t.steps[0].calls == (call,)


def test_calls_written_before_images_were_recorded_still_read(tmp_path: Path) -> None:
    old_call = {"purpose": "select", "prompt": "p", "outputs": ["a"], "temperature": 0.0, "n": 1, "model": "m",
                "prompt_tokens": 3, "output_tokens": 1, "latency_s": 0.1, "retries": 0, "started_s": 0.0,
                "error": None}
    header = {"record": "episode", "schema_version": 3, "episode_id": "ep", "goal": "g", "normalized_goal": "g",
              "method": "m", "grounder": "paper", "llm": "x", "device": "sim", "max_steps": 3, "started_at": 0.0,
              "setup_calls": [old_call]}
    (tmp_path / "ep").mkdir()
    (tmp_path / "ep" / "trajectory.jsonl").write_text(json.dumps(header) + "\n", encoding="utf-8")
    (call,) = read_trajectory(tmp_path / "ep").header.setup_calls
    assert (call.images, call.messages, call.image_tokens, call.outputs) == ((), (), 0, ("a",))


def test_the_episode_page_names_a_calls_turns_and_images(tmp_path: Path, screenshot: Image) -> None:
    from latent_agent.agent.pages.episode_page import render_html, unpack_folds

    call = LLMCall(purpose="name_icons", prompt="Name them.", outputs=("icon_1: search",), prompt_tokens=2100,
                   image_tokens=2064, messages=(MessageInfo("system", "You read screens."),),
                   images=(screenshot.info(),))
    writer = TrajectoryWriter(tmp_path / "ep", _header((call,)))
    writer.close()
    page = render_html(read_trajectory(tmp_path / "ep"))
    described = f"1 image 1080x2400 PNG, {round(screenshot.size_bytes / 1024)} KB"
    assert f"{described} (2064 tokens)" in page
    (fold,) = unpack_folds(page)
    assert fold["blocks"][:4] == [["label", "system"], ["text", "You read screens."],
                                  ["label", f"prompt ({described})"], ["text", "Name them."]]
