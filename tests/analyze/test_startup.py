"""`memtrace-analyze info` draws nothing, so it must not load matplotlib (about
half a second and 25 MB of the interpreter's start): every verb module is
imported to parse the command line, so a module-level plotting import in any
of them would load it for every verb."""
import subprocess

from conftest import CLI, PYTHON
from tracegen import write_trace


def test_info_loads_no_matplotlib(tmp):
    path = str(tmp / "t.mtrace")
    write_trace(path, [1000 * i for i in range(50)], [0x10000 + 4096 * (i % 7) for i in range(50)])
    r = subprocess.run([PYTHON, "-X", "importtime", CLI, "info", path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    loaded = [ln.split("|")[-1].strip() for ln in r.stderr.splitlines() if ln.startswith("import time:")]
    assert "numpy" in loaded
    assert not [m for m in loaded if m.startswith("matplotlib")], "info imported matplotlib"
