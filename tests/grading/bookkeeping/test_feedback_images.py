"""Images on the feedback page cost what a page may: attachments of Markdown cells are held to the outputs' cap, and
no image may declare more pixels than a browser should draw (preprocessors.LimitImages).

The attacks (issue 47): a 389 kB PNG attached to a Markdown cell that decodes to 20000 x 20000 (headless Chromium
had not drawn that page after 90 s, at 2 GB), and a 20 MB attachment (a 21 MB page). Beside them an honest
learner's attached picture and plotted figure stay on the page.
"""
import base64
import struct
import zlib

import nbformat
import pytest

from autograder.grading.bookkeeping.preprocessors import LimitImages, image_size
from tests.grading.outputs.test_feedback_sanitiser import feedback_page


def png(width, height):
    """A valid 1-bit greyscale PNG of ``width`` x ``height``, all black: tiny for its size."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    row = b"\0" + bytes((width + 7) // 8)
    pixels = zlib.compress(row * height, 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))


def b64(data):
    return base64.b64encode(data).decode()


HONEST = png(64, 48)
BOMB = png(20_000, 20_000)


def with_attachment(name, data, mime="image/png"):
    return nbformat.v4.new_markdown_cell(f"My picture: ![{name}](attachment:{name})",
                                         attachments={name: {mime: b64(data)}})


def plotted(data):
    cell = nbformat.v4.new_code_cell("plot()")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": b64(data), "text/plain": "<Figure>"})]
    return cell


def test_the_bomb_is_small_on_disk_and_huge_on_screen():
    assert len(BOMB) < 100_000 and image_size(BOMB) == (20_000, 20_000)
    assert image_size(HONEST) == (64, 48)


@pytest.mark.parametrize("language, told", [("en", "was left out of this page"), ("ko", "이 페이지에서 뺐습니다")])
def test_an_attached_image_bomb_is_left_out_and_said_so(tmp_path, language, told):
    page = feedback_page([with_attachment("honest.png", HONEST), with_attachment("bomb.png", BOMB),
                          with_attachment("huge.png", HONEST + bytes(20_000_000))], tmp_path, language)
    assert b64(HONEST) in page, "the honest learner's picture is no longer on the page"
    assert b64(BOMB)[:200] not in page, "the image declaring 20000 x 20000 pixels reached the page"
    assert len(page) < 2_000_000, f"the page is {len(page):,} bytes: the 20 MB attachment reached it"
    assert page.count(told) == 2 and "20000 x 20000" in page and "bomb.png" in page and "huge.png" in page


def test_an_output_image_bomb_under_the_byte_cap_is_left_out(tmp_path):
    page = feedback_page([plotted(HONEST), plotted(BOMB)], tmp_path)
    assert b64(HONEST) in page and b64(BOMB)[:200] not in page
    assert "20000 x 20000 pixels" in page


def test_images_of_other_formats_are_measured():
    gif = b"GIF89a" + struct.pack("<HH", 300, 200) + bytes(20)
    jpeg = b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 4) + b"JF" + b"\xff\xc0" + struct.pack(">HBHH", 11, 8, 480, 640) + bytes(8)
    webp = b"RIFF" + bytes(4) + b"WEBP" + b"VP8X" + bytes(8) + (639).to_bytes(3, "little") + (479).to_bytes(3, "little")
    assert image_size(gif) == (300, 200) and image_size(jpeg) == (640, 480) and image_size(webp) == (640, 480)
    assert LimitImages()._why_left_out("image/png", b64(b"not an image")) is not None
