"""Arguments that were accepted and silently ignored are errors now
(issue 14): @vp.kernel keywords, debug_asserts=; ufunc keywords VulPy does
not implement."""
import numpy as np
import pytest

import vulpy as vp

from conftest import needs_target

pytestmark = pytest.mark.usefixtures("ctx")


def _body(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    x[i] = 1.0


@needs_target
def test_kernel_keyword_typo_is_a_type_error():
    with pytest.raises(TypeError, match="'local_sizex'.*did you mean 'local_size_x'"):
        vp.kernel(local_sizex=128)(_body)
    with pytest.raises(TypeError, match="'local_sizex'"):
        vp.kernel(_body, local_sizex=128)


@needs_target
def test_debug_asserts_is_not_silently_ignored():
    with pytest.raises(TypeError, match="debug_asserts"):
        vp.kernel(debug_asserts=True)(_body)


@needs_target
def test_known_options_still_work():
    k = vp.kernel(local_size_x=32, control_words={"c": ["a"]}, helpers=())(_body)
    x = vp.zeros(40)
    k(x, dispatch=40)
    np.testing.assert_array_equal(x.numpy(), np.ones(40, np.float32))


def test_glsl_kernel_unknown_option():
    with pytest.raises(TypeError, match="unknown option 'local_sizex'"):
        vp.kernel("#version 450\nvoid main() {}\n", local_sizex=4)


def test_compile_unknown_keyword(tmp_path):
    p = tmp_path / "k.vul.py"
    p.write_text("import vulpy as vp\n")
    with pytest.raises(TypeError, match="local_sizex"):
        vp.compile(p, local_sizex=4)


def test_shader_run_unknown_push_constant(tmp_path):
    p = tmp_path / "k.vul.py"
    p.write_text("import vulpy as vp\n\n@vp.kernel(local_size_x=64)\n"
                 "def main(x: vp.Buffer[vp.float32], a: vp.float32):\n"
                 "    x[vp.global_id()] = a\n")
    s = vp.compile(p)
    s.allocate(x=8)
    with pytest.raises(TypeError, match="unknown push constant 'b'"):
        s.run(dispatch=8, a=1.0, b=2.0)


# (dtype= and where= are implemented: test_hunt_ufunc.py::test_ufunc_dtype_and_where;
# casting= since session 43: test_hunt_ufunc.py::test_out_of_another_dtype_and_casting_as_numpy)
@pytest.mark.parametrize("kw", [{"order": "C"}, {"subok": False}, {"signature": "ff->f"}])
def test_ufunc_keywords_vulpy_lacks_are_type_errors(kw):
    x = vp.arange(4, dtype=np.float32)
    with pytest.raises(TypeError):
        vp.add(x, x, **kw)
    with pytest.raises(TypeError):
        vp.sin(np.ones(4, np.float32), **kw)
    # through NumPy's own ufunc on a resident array: NotImplemented -> TypeError
    with pytest.raises(TypeError):
        np.add(x, x, **kw)
