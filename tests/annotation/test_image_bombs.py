"""Screenshots that declare more pixels than any screen: refused in one line, never decoded."""

from __future__ import annotations

import shutil
import struct
import zlib
from pathlib import Path

import pytest

from latent_agent.accessibility.screen.observer import ScreenObserver
from latent_agent.agent.pages.screenshots import render_shot
from latent_agent.agent.pages.thumbnails import make_thumbnail
from latent_agent.cli import main
from latent_agent.errors import AnnotationError, InputError, ParseError
from latent_agent.untrusted_images import open_untrusted_image
from tests.accessibility.test_screen_layout import FixedOcr


def bomb(width: int, height: int) -> bytes:
    """A PNG of a few dozen bytes whose header declares ``width`` x ``height`` RGB pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


@pytest.mark.parametrize(("width", "height"), [(20_000, 20_000), (8_000, 6_500)])  # 400 and 52 megapixels
def test_every_reader_refuses_before_decoding(width: int, height: int) -> None:
    data = bomb(width, height)
    with pytest.raises(InputError, match=r"the screenshot is refused: .*more than 40 megapixels"):
        open_untrusted_image(data, "the screenshot")
    with pytest.raises(AnnotationError, match="screenshot is refused"):
        render_shot(data)  # annotate export
    with pytest.raises(InputError, match="the screenshot is refused"):
        make_thumbnail(data)  # show, report
    with pytest.raises(ParseError, match=r"screenshot: .* is refused"):
        ScreenObserver(FixedOcr([])).read(data)  # run --observation screen


def test_annotate_export_says_so_in_one_line(sim_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(sim_run / "ep_flash", run / "ep_flash")
    (run / "ep_flash" / "screens" / "step_000.png").write_bytes(bomb(20_000, 20_000))
    assert main(["annotate", "export", str(run), "--kind", "e2e", "--out", str(tmp_path / "forms")]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "screenshot is refused" in err[0], err


def test_ordinary_screens_still_open() -> None:
    from io import BytesIO

    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (1080, 2400), (255, 255, 255)).save(out, "PNG")
    assert open_untrusted_image(out.getvalue(), "the screenshot").size == (1080, 2400)
