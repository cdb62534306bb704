"""pytest set-up for the Python package: validation on, a private cache,
and a check after every test that the validation layer said nothing.

Tests run on whatever device the default context picks (lavapipe on a
machine without a GPU). Any message from the Khronos validation layer, on
any live Context, fails the test that caused it.
"""
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("VULPY_VALIDATION", "1")
os.environ.pop("VULPY_CACHE_DIR", None)  # the tests keep their caches private
if "XDG_CACHE_HOME" not in os.environ:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="vulpy-test-cache-")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import pytest  # noqa: E402

import vulpy as vp  # noqa: E402
from vulpy import _context, _engine, _native  # noqa: E402


HAVE_EXT = _native.available()
# The extension always carries the whole compiler (frontend, back ends,
# SPIRV-Cross); these names stay for the tests' markers.
HAVE_TARGET = HAVE_CROSS = HAVE_EXT

needs_ext = pytest.mark.skipif(not HAVE_EXT, reason="the C extension is not built")
needs_target = pytest.mark.skipif(not HAVE_TARGET, reason="the back ends (lib/Target) are not built")
needs_cross = pytest.mark.skipif(not HAVE_CROSS, reason="SPIRV-Cross reflection is not built")



def divides_correctly(ctx):
    """Whether float32 division on ctx is correctly rounded (docs/math.md):
    lavapipe's is (VK_DRIVER_ID_MESA_LLVMPIPE, 13), and on a device with a
    fused fma vp_divf refines the quotient until it is; elsewhere Vulkan's
    2.5 ULP bound is all there is."""
    return ctx.info["driver_id"] == 13 or ctx.fma_fused


# Files whose tests must not share the CPU with another pytest process:
# persistent programs, whose workgroups spin on each other in lavapipe's
# threads under a loop budget (a thread descheduled for another process's
# work can run a spinning one out of it), and tests that time the device or
# the host. scripts/run_tests.py runs them alone ("pytest-serial") after the
# rest has run in one pytest-xdist worker per core.
# Every test_persistent*.py, and these:
SERIAL_FILES = frozenset({
    "test_memsock.py", "test_loop_canary.py", "test_streams.py", "test_trust_process.py",
    "test_eager_adaptive.py", "test_fdtd.py",
})


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
    config.addinivalue_line("markers", "serial: runs alone, never beside another pytest worker "
                                       "(conftest.SERIAL_FILES)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name.startswith("test_persistent") or item.path.name in SERIAL_FILES:
            item.add_marker(pytest.mark.serial)


@pytest.fixture(scope="session")
def ctx():
    """The default context (one VkDevice for the whole session)."""
    if not HAVE_EXT:
        pytest.skip("the C extension is not built")
    return vp.default_context()


@pytest.fixture(autouse=True)
def _no_validation_messages():
    """Fails the test when the validation layer reported anything."""
    yield
    msgs = []
    for c in list(_context._live):
        try:
            msgs += c.take_validation()
        except Exception:  # a context being torn down
            pass
    if msgs:
        pytest.fail("validation layer messages:\n" + "\n".join(msgs[:10]), pytrace=False)


@pytest.fixture
def compiled_texts(ctx, monkeypatch):
    """The array VIR texts handed to _engine.compile from here on (the
    context's plans dropped first: a planned call compiles nothing)."""
    ctx._ufast.clear()
    texts = []
    real = _engine.compile

    def counting(text, c, *a, **kw):
        texts.append(text)
        return real(text, c, *a, **kw)

    monkeypatch.setattr(_engine, "compile", counting)
    return texts
