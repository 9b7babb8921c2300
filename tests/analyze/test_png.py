"""png.encode (the figures' PNG writer, without Pillow) checked by Pillow's
decoder: every pixel back as written (RGBA, odd sizes, all byte values),
text chunks in Latin-1 (tEXt) and beyond (iTXt), the resolution; a buffer
that is not height x width x 4 is refused."""
import io

import numpy as np
import pytest
from PIL import Image

from memtrace_analyze import png


def decode(data):
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


@pytest.mark.parametrize("h,w", [(1, 1), (3, 257), (131, 7), (480, 640)])
def test_every_pixel_back(h, w):
    rng = np.random.default_rng(h * 1000 + w)
    px = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    px[:, : w // 2] = (255, 255, 255, 255)      # a flat area too (what zlib shrinks)
    im = decode(png.encode(px))
    assert im.mode == "RGBA" and im.size == (w, h)
    assert (np.asarray(im) == px).all()


def test_texts_and_resolution():
    px = np.zeros((5, 6, 4), dtype=np.uint8)
    texts = {"Title": "dbquery — a title past Latin-1 (τ)", "Description": "plain\nlines", "Software": "x"}
    im = decode(png.encode(px, texts, dpi=110))
    assert im.text == texts
    assert [round(d) for d in im.info["dpi"]] == [110, 110]


def test_none_texts_left_out():
    im = decode(png.encode(np.zeros((2, 2, 4), dtype=np.uint8), {"Title": "t", "Software": None}))
    assert im.text == {"Title": "t"}


def test_memoryview_as_agg_gives_it():
    px = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    assert (np.asarray(decode(png.encode(memoryview(px)))) == px).all()


@pytest.mark.parametrize("shape", [(4, 4), (4, 4, 3), (2, 2, 2, 4)])
def test_wrong_shape_refused(shape):
    with pytest.raises(ValueError, match="height x width x 4"):
        png.encode(np.zeros(shape, dtype=np.uint8))
