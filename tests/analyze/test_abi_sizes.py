"""The ctypes binding and libmemtrace.so agree on every public struct: the
compiler's sizeof (a C program built here from include/memtrace/memtrace.h,
the oracle) equals memtrace_struct_size (what the library says) and the size
of each ctypes mirror; a mirror of the wrong size is refused by name."""
import ctypes as C
import os
import re
import subprocess

import pytest
from conftest import TOP

from memtrace_analyze import lib, libcompare, sites  # noqa: F401 (their structs register)


def public_structs():
    names = set()
    inc = os.path.join(TOP, "include", "memtrace")
    for h in os.listdir(inc):
        with open(os.path.join(inc, h)) as f:
            names |= set(re.findall(r"^struct (memtrace_[a-z0-9_]+) \{", f.read(), re.M))
    return sorted(names)


@pytest.fixture(scope="module")
def compiler_sizes(tmp_path_factory):
    d = tmp_path_factory.mktemp("sizes")
    src = d / "sizes.c"
    names = public_structs()
    src.write_text('#include <stdio.h>\n#include "memtrace/memtrace.h"\nint main(void)\n{\n' +
                   "".join('\tprintf("%s %%zu\\n", sizeof(struct %s));\n' % (n, n) for n in names) +
                   "\treturn 0;\n}\n")
    exe = d / "sizes"
    subprocess.run(["cc", "-std=c11", "-I", os.path.join(TOP, "include"), "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {k: int(v) for k, v in (line.split() for line in out.splitlines())}


def test_library_knows_every_public_struct(compiler_sizes):
    h = lib.lib()
    assert len(compiler_sizes) >= 40
    wrong = {n: (h.memtrace_struct_size(n.encode()), sz) for n, sz in compiler_sizes.items()
             if h.memtrace_struct_size(n.encode()) != sz}
    assert not wrong, "library size != sizeof: %s" % wrong
    assert h.memtrace_struct_size(b"memtrace_no_such_struct") == 0
    assert h.memtrace_struct_size(None) == 0


def test_every_mirror_has_the_c_size(compiler_sizes):
    lib.lib()
    assert len(lib._STRUCTS) >= 38
    for cls, name in lib._STRUCTS.items():
        assert name in compiler_sizes, "%s mirrors %s, not a public struct" % (cls.__name__, name)
        assert C.sizeof(cls) == compiler_sizes[name], (cls.__name__, name)
    # every ctypes Structure of the binding is a checked mirror
    import memtrace_analyze
    pkg = os.path.dirname(memtrace_analyze.__file__)
    declared = 0
    for f in os.listdir(pkg):
        if f.endswith(".py"):
            with open(os.path.join(pkg, f)) as fh:
                declared += len(re.findall(r"^class \w+\(C\.Structure\):", fh.read(), re.M))
    assert declared == len(lib._STRUCTS)


def test_wrong_mirror_refused():
    lib.lib()
    before = dict(lib._STRUCTS)
    with pytest.raises(lib.MemtraceError, match=r"struct memtrace_words is \d+ bytes there, \d+ bytes in the binding"):
        @lib.cstruct("memtrace_words")
        class Short(C.Structure):
            _fields_ = [("a", C.c_char_p)]
    with pytest.raises(lib.MemtraceError, match="struct memtrace_nothing is unknown there"):
        @lib.cstruct("memtrace_nothing")
        class Unknown(C.Structure):
            _fields_ = [("a", C.c_uint64)]
    assert lib._STRUCTS == before
