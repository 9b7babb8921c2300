"""pytest setup for the analysis tests: import paths, Agg backend, helpers."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "user", "analyze"))
sys.path.insert(0, HERE)
os.environ.setdefault("MPLBACKEND", "Agg")

CLI = os.path.join(TOP, "user", "analyze", "memtrace-analyze")
PYTHON = "/usr/bin/python3"


@pytest.fixture
def tmp(tmp_path):
    return tmp_path


def assert_png(path):
    """A real, non-empty PNG of a plausible size."""
    assert os.path.exists(path), path
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG: %s" % path
    assert len(data) > 5000, "suspiciously small PNG (%d bytes): %s" % (len(data), path)
    import struct
    w, h = struct.unpack(">II", data[16:24])
    assert w >= 400 and h >= 200, (w, h)
    return w, h
