"""Images through the real SDKs to the protocol stand-ins, the stand-ins' checks, token rules and accounting."""

from __future__ import annotations

import base64
import io
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image as PILImage

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.errors import ConfigError, LLMBudgetExceededError, LLMRequestError
from latent_agent.llm.accounting import Accountant, PriceTable
from latent_agent.llm.budget import Budget
from latent_agent.llm.capabilities import capabilities
from latent_agent.llm.gemini import GeminiClient, _image_tokens
from latent_agent.llm.image_tokens import gemini_tokens, image_tokens, openai_tokens
from latent_agent.llm.images import Image
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest, Message
from tests.llm.client_contract import RETRY, contract_responder

KEY = "images-local-key"


def png(width: int, height: int, colour: tuple[int, int, int] = (30, 90, 160)) -> Image:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), colour).save(out, format="PNG")
    return Image(out.getvalue(), "image/png")


SCREEN = png(1080, 2400)
ICON = png(96, 96, (250, 250, 0))


def ask(*images: Image) -> GenerationRequest:
    return GenerationRequest(messages=(Message("user", "What is on this screen?", images),), purpose="look")


@pytest.fixture
def gemini() -> Iterator[tuple[GeminiStandIn, ScriptedModel]]:
    model = ScriptedModel(responder=contract_responder, model="gemini-2.5-flash")
    with GeminiStandIn(model, api_key=KEY) as server:
        yield server, model


@pytest.fixture
def openai() -> Iterator[tuple[OpenAIStandIn, ScriptedModel]]:
    model = ScriptedModel(responder=contract_responder)
    with OpenAIStandIn(model, api_key=KEY) as server:
        yield server, model


# -- the published token rules ---------------------------------------------------------------------


@pytest.mark.parametrize(("size", "tokens"), [
    ((384, 384), 258), ((100, 385), 258), ((768, 768), 258), ((769, 768), 516), ((1080, 2400), 2064),
    ((461, 1024), 516),
])
def test_gemini_rule(size: tuple[int, int], tokens: int) -> None:
    assert gemini_tokens(*size) == tokens == image_tokens("gemini", *size)


@pytest.mark.parametrize(("size", "tokens"), [
    ((1024, 1024), 765), ((2048, 4096), 1105), ((512, 512), 255), ((1080, 2400), 1445), ((100, 100), 255),
])
def test_openai_high_detail_rule(size: tuple[int, int], tokens: int) -> None:
    # 1024x1024 -> 768x768, 4 tiles; 2048x4096 -> 1024x2048 -> 768x1536, 6 tiles (OpenAI's own examples).
    assert openai_tokens(*size) == tokens == image_tokens("openai-high", *size)


def test_openai_low_detail_is_flat() -> None:
    assert openai_tokens(1080, 2400, "low") == 85 == image_tokens("openai-low", 4000, 4000)


def test_a_rule_refuses_an_empty_image() -> None:
    with pytest.raises(LLMRequestError, match="at least 1x1"):
        gemini_tokens(0, 10)


# -- through the SDKs --------------------------------------------------------------------------------


def test_gemini_sends_images_intact_with_turns_in_order(gemini: tuple[GeminiStandIn, ScriptedModel]) -> None:
    server, model = gemini
    client = GeminiClient("gemini-2.5-flash", api_key=KEY, base_url=server.url, retry=RETRY)
    try:
        request = GenerationRequest(messages=(
            Message("system", "Name screens."), Message("user", "first", (ICON,)), Message("assistant", "an icon"),
            Message("user", "now this", (SCREEN, ICON)),
        ), purpose="look")
        answer = client.generate_sync(request)
    finally:
        client.close()
    (received,) = model.requests
    assert [(m.role, m.text) for m in received.messages] == [
        ("system", "Name screens."), ("user", "first"), ("assistant", "an icon"), ("user", "now this")]
    assert [i.sha256() for m in received.messages for i in m.images] == [ICON.sha256(), SCREEN.sha256(),
                                                                         ICON.sha256()]
    assert server.images_received == 3
    (body,) = [s.body for s in server.seen]
    assert "inlineData" in body["contents"][2]["parts"][0]  # the images come before the turn's text
    # Gemini's per-modality count (the stand-in reports the published rule) is what the client keeps.
    assert answer.usage.image_tokens == 2064 + 258 + 258


def test_openai_sends_images_as_data_url_parts(openai: tuple[OpenAIStandIn, ScriptedModel]) -> None:
    server, model = openai
    client = OpenAICompatClient("gpt-4o-mini", api_key=KEY, base_url=server.base_url, retry=RETRY,
                                discover_server=False)
    try:
        answer = client.generate_sync(ask(SCREEN))
    finally:
        client.close()
    (received,) = model.requests
    assert received.messages[0].images[0] == SCREEN and server.images_received == 1
    (part_text, part_image) = server.seen[0].body["messages"][0]["content"]
    assert part_text == {"type": "text", "text": "What is on this screen?"}
    assert part_image["image_url"]["detail"] == "high"
    assert part_image["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    assert answer.usage.image_tokens == 1445 and answer.usage.prompt_tokens > 1445


def test_openai_low_detail(openai: tuple[OpenAIStandIn, ScriptedModel]) -> None:
    server, _ = openai
    client = OpenAICompatClient("gpt-4o-mini", api_key=KEY, base_url=server.base_url, retry=RETRY,
                                image_detail="low", discover_server=False)
    try:
        answer = client.generate_sync(ask(SCREEN, ICON))
    finally:
        client.close()
    assert server.seen[0].body["messages"][0]["content"][1]["image_url"]["detail"] == "low"
    assert answer.usage.image_tokens == 2 * 85
    with pytest.raises(ConfigError, match="image detail must be high or low"):
        OpenAICompatClient("gpt-4o", api_key=KEY, image_detail="auto")  # type: ignore[arg-type]


def test_the_reported_image_count_wins_over_the_estimate() -> None:
    details = [SimpleNamespace(modality=SimpleNamespace(value="TEXT"), token_count=7),
               SimpleNamespace(modality=SimpleNamespace(value="IMAGE"), token_count=999)]
    assert _image_tokens(SimpleNamespace(prompt_tokens_details=details), ask(SCREEN)) == 999
    assert _image_tokens(SimpleNamespace(prompt_tokens_details=None), ask(SCREEN)) == 2064
    assert _image_tokens(SimpleNamespace(prompt_tokens_details=details[:1]), ask(SCREEN)) == 2064
    assert _image_tokens(None, GenerationRequest(prompt="text")) == 0


@pytest.mark.parametrize(("provider", "model"), [("gemini", "gemini-1.0-pro"), ("openai", "gpt-3.5-turbo"),
                                                 ("openai", "o3-mini")])
def test_a_text_only_model_is_refused_before_anything_is_sent(
    gemini: tuple[GeminiStandIn, ScriptedModel], openai: tuple[OpenAIStandIn, ScriptedModel], provider: str,
    model: str,
) -> None:
    assert not capabilities(provider, model).images
    budget = Budget(max_calls=5)
    server = gemini[0] if provider == "gemini" else openai[0]
    client = (GeminiClient(model, api_key=KEY, base_url=server.url, budget=budget) if provider == "gemini"
              else OpenAICompatClient(model, api_key=KEY, base_url=openai[0].base_url, budget=budget,
                                      discover_server=False))
    try:
        with pytest.raises(LLMRequestError, match=f"{model} takes no images .* this look call carries 1"):
            client.generate_sync(ask(SCREEN))
        assert client.generate_sync(GenerationRequest(prompt="text only")).text == "echo: text only"
    finally:
        client.close()
    assert len(server.seen) == 1 and budget.state().calls == 1


@pytest.mark.parametrize(("provider", "model"), [("gemini", "gemini-2.5-flash"), ("gemini", "gemini-1.0-pro-vision"),
                                                 ("openai", "gpt-4o"), ("openai", "o1"), ("openai", "my-local-vlm")])
def test_multimodal_and_unlisted_models_take_images(provider: str, model: str) -> None:
    assert capabilities(provider, model).images


# -- the stand-ins' own checks ----------------------------------------------------------------------


def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str]:
    data = json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def gemini_body(data: str, mime: str) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": mime, "data": data}},
                                                    {"text": "what?"}]}]}


def openai_body(url: str) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "what?"}, {"type": "image_url", "image_url": {"url": url}}]}]}


@pytest.mark.parametrize(("data", "mime", "message"), [
    ("not base64!!", "image/png", "image/png image: data is not valid base64"),
    (base64.b64encode(SCREEN.data).decode(), "image/jpeg", "declared image/jpeg but its bytes are image/png"),
    (base64.b64encode(b"plain text").decode(), "image/png", "not a PNG, JPEG or WebP file"),
    (base64.b64encode(SCREEN.data).decode(), "image/gif", "image/gif' is not supported"),
])
def test_the_stand_ins_refuse_bad_images(
    gemini: tuple[GeminiStandIn, ScriptedModel], openai: tuple[OpenAIStandIn, ScriptedModel], data: str, mime: str,
    message: str,
) -> None:
    url = f"{gemini[0].url}/v1beta/models/gemini-2.5-flash:generateContent"
    status, text = post(url, gemini_body(data, mime), {"x-goog-api-key": KEY})
    assert status == 400 and message in json.loads(text)["error"]["message"]
    status, text = post(f"{openai[0].base_url}/chat/completions", openai_body(f"data:{mime};base64,{data}"),
                        {"Authorization": f"Bearer {KEY}"})
    assert status == 400 and message in json.loads(text)["error"]["message"]
    assert gemini[0].images_received == openai[0].images_received == 0
    assert gemini[1].requests == openai[1].requests == ()


def test_the_openai_stand_in_fetches_no_remote_image(openai: tuple[OpenAIStandIn, ScriptedModel]) -> None:
    status, text = post(f"{openai[0].base_url}/chat/completions", openai_body("https://example.com/a.png"),
                        {"Authorization": f"Bearer {KEY}"})
    assert status == 400 and "must be a base64 data: URL" in json.loads(text)["error"]["message"]


# -- accounting and budget ----------------------------------------------------------------------------


def test_the_accountant_counts_images_bytes_and_tokens(gemini: tuple[GeminiStandIn, ScriptedModel]) -> None:
    server, _ = gemini
    accountant = Accountant(prices=PriceTable.load())
    client = GeminiClient("gemini-2.5-flash", api_key=KEY, base_url=server.url, retry=RETRY, accountant=accountant)
    try:
        client.generate_sync(ask(SCREEN, ICON))
        client.generate_sync(GenerationRequest(prompt="text only"))
    finally:
        client.close()
    with_images, text_only = accountant.records()
    assert (with_images.images, with_images.image_bytes) == (2, SCREEN.size_bytes + ICON.size_bytes)
    assert with_images.usage.image_tokens == 2064 + 258 and text_only.images == 0
    totals = accountant.totals()
    assert (totals.images, totals.image_bytes, totals.image_tokens) == (2, with_images.image_bytes, 2322)
    # Images are billed at the input rate with the rest of the prompt.
    price = PriceTable.load().lookup("gemini-2.5-flash")
    assert price is not None and with_images.cost_usd is not None
    assert with_images.cost_usd >= with_images.usage.image_tokens * price.input_per_mtok / 1e6
    line = with_images.to_json()
    assert line["images"] == 2 and "images" not in text_only.to_json()
    assert SCREEN.sha256() in json.dumps(line) and len(json.dumps(line)) < 3000


def test_image_tokens_spend_the_token_budget() -> None:
    budget = Budget(max_tokens=2000)
    model = ScriptedModel(responder=contract_responder, budget=budget)
    model.generate_sync(ask(SCREEN))  # 2064 image tokens alone
    with pytest.raises(LLMBudgetExceededError, match="token budget spent"):
        model.generate_sync(GenerationRequest(prompt="short"))
