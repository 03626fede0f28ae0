"""acs.torch on a CPU: which ranges each operator declares, which level declares, and that the
integration does nothing without libacs.so. acs is stood in for by a recorder library
(tests/torch/recorder.c, $ACS_TORCH_RECORDER) that logs every annotation call; CPU tensors are
declared (enable(cpu_tensors=True)), so that a CPU-only PyTorch shows the same decisions a CUDA
run makes. Without PyTorch the whole file is skipped (exit 77, CTest's SKIP_RETURN_CODE).

    ACS_TORCH_RECORDER=build/tests/torch/libacs_torch_recorder.so python3 test_torch_integration.py
"""
import ctypes
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")
RECORDER = os.environ.get("ACS_TORCH_RECORDER", "")

try:
    import torch
except Exception as e:  # noqa: BLE001
    print(f"SKIPPED: PyTorch is not importable here ({e.__class__.__name__}: {e})")
    sys.exit(77)
if not os.path.isfile(RECORDER):
    print(f"SKIPPED: no recorder library (ACS_TORCH_RECORDER={RECORDER!r})")
    sys.exit(77)

recorder = ctypes.CDLL(RECORDER, mode=ctypes.RTLD_GLOBAL)  # before acs.torch's first acs call
recorder.acs_recorder_text.restype = ctypes.c_void_p
recorder.acs_recorder_free.argtypes = [ctypes.c_void_p]
sys.path.insert(0, PYTHON_DIR)
import acs.torch  # noqa: E402  (enables with the defaults: CPU tensors are not declared)

ALL_MEMORY = (1, 2**64 - 2)  # op_footprint.cpp's all_memory()


def recorded():
    p = recorder.acs_recorder_text()
    try:
        return ctypes.string_at(p).decode()
    finally:
        recorder.acs_recorder_free(p)


def parse(text):
    """[(kind, reads, writes, flags)] with ranges as (address, bytes); 'end' lines as ('end',)."""
    events = []
    for line in text.splitlines():
        if line == "end":
            events.append(("end",))
            continue
        m = re.match(r"(begin|next) R=(\S*) W=(\S*) F=(\d+)$", line)
        if not m:
            continue

        def ranges(s):
            return [(int(p, 16), int(n)) for p, n in (r.split(":") for r in s.split(",") if r)]
        events.append((m.group(1), ranges(m.group(2)), ranges(m.group(3)), int(m.group(4))))
    return events


def extent(t):
    span = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()) if s > 1)
    return (t.data_ptr(), span * t.element_size()) if t.numel() else None


class integration(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        acs.torch.disable()
        assert acs.torch.enable(cpu_tensors=True), acs.torch.status()

    def run_op(self, fn):
        """The begin/end events of the operators fn calls."""
        recorder.acs_recorder_clear()
        result = fn()
        events = parse(recorded())
        self.assertEqual(acs.torch._integration._state["module"].open_operators(), 0, "a start without its end")
        self.assertEqual(sum(e[0] == "begin" for e in events), events.count(("end",)), "unbalanced scopes")
        return result, [e for e in events if e[0] == "begin"], events

    def test_torch_integration_reads_inputs_and_writes_nothing_for_a_fresh_result(self):
        x, y = torch.randn(4, 5), torch.randn(4, 5)
        _, begins, events = self.run_op(lambda: torch.add(x, y))
        self.assertEqual(len(begins), 1, events)
        _, reads, writes, flags = begins[0]
        self.assertEqual(sorted(reads), sorted([extent(x), extent(y)]))
        self.assertEqual(writes, [])
        self.assertEqual(flags, 0, "not ACS_EXACT: acs adds the output's block")
        self.assertEqual(events[-1], ("end",))

    def test_torch_integration_in_place_and_out_arguments_are_written(self):
        x, y, z = torch.randn(8), torch.randn(8), torch.empty(8)
        _, begins, _ = self.run_op(lambda: x.add_(y))
        self.assertEqual((begins[0][1], begins[0][2]), ([extent(y)], [extent(x)]))
        _, begins, _ = self.run_op(lambda: torch.add(x, y, out=z))
        self.assertEqual(sorted(begins[0][1]), sorted([extent(x), extent(y)]))
        self.assertEqual(begins[0][2], [extent(z)])

    def test_torch_integration_a_view_declares_the_bytes_it_can_touch_not_its_storage(self):
        base = torch.arange(100.0).reshape(10, 10)
        v = base[2:5, 1::3]  # rows 2-4, columns 1, 4, 7: 1 + 2*10 + 2*3 = 27 elements
        _, begins, _ = self.run_op(lambda: torch.neg(v))
        self.assertEqual(begins[0][1], [(v.data_ptr(), 27 * 4)])
        self.assertNotEqual(begins[0][1][0], (base.data_ptr(), base.numel() * 4))

    def test_torch_integration_tensor_lists_and_optional_tensors(self):
        a, b = torch.randn(3, 2), torch.randn(5, 2)
        _, begins, _ = self.run_op(lambda: torch.cat([a, b]))
        self.assertEqual(sorted(begins[0][1]), sorted([extent(a), extent(b)]))
        x, idx = torch.randn(4, 6), torch.tensor([0, 2, 5])
        _, begins, _ = self.run_op(lambda: torch.ops.aten.index(x, [None, idx]))
        self.assertEqual(sorted(begins[0][1]), sorted([extent(x), extent(idx)]))
        params = [torch.randn(3), torch.randn(4)]
        grads = [torch.randn(3), torch.randn(4)]
        _, begins, _ = self.run_op(lambda: torch._foreach_add_(params, grads))
        self.assertEqual(sorted(begins[0][2]), sorted(extent(p) for p in params))
        self.assertEqual(sorted(begins[0][1]), sorted(extent(g) for g in grads))

    def test_torch_integration_the_outermost_operator_declares_once(self):
        # linear -> t, addmm (and more inside): one scope, with linear's own tensors.
        x, w, b = torch.randn(2, 8), torch.randn(4, 8), torch.randn(4)
        _, begins, events = self.run_op(lambda: torch.nn.functional.linear(x, w, b))
        self.assertEqual(len(begins), 1, events)
        self.assertEqual(sorted(begins[0][1]), sorted([extent(x), extent(w), extent(b)]))
        self.assertEqual(events.count(("end",)), 1)

    def test_torch_integration_views_declare_nothing_and_what_they_call_declares(self):
        x = torch.randn(4, 4).t()  # not contiguous: reshape copies, through clone
        _, begins, _ = self.run_op(lambda: x.reshape(-1))
        self.assertEqual(begins[0][1], [extent(x)], "reshape declares nothing; the clone inside it does")
        self.assertEqual(begins[0][2], [])
        y = torch.randn(16)
        for view in (lambda: y.view(4, 4), lambda: y.detach(), lambda: y.unsqueeze(0), lambda: y.split(4)):
            _, begins, events = self.run_op(view)
            self.assertEqual(begins, [], events)

    def test_torch_integration_batch_norm_running_statistics_are_written(self):
        # batch_norm's schema does not mark them written; it updates them in training.
        x = torch.randn(4, 3, 5, 5)
        rm, rv = torch.zeros(3), torch.ones(3)
        _, begins, _ = self.run_op(lambda: torch.nn.functional.batch_norm(x, rm, rv, training=True))
        self.assertEqual(sorted(begins[0][2]), sorted([extent(rm), extent(rv)]))
        self.assertEqual(begins[0][1], [extent(x)])

    def test_torch_integration_pointer_array_operators_touch_all_memory(self):
        m = torch.randn(3, 3) + 3 * torch.eye(3)
        for op in (torch.linalg.inv, torch.det, torch.inverse):
            _, begins, events = self.run_op(lambda: op(m))
            self.assertEqual(len(begins), 1, "nothing inside an unsafe operator declares less")
            self.assertEqual((begins[0][1], begins[0][2], begins[0][3]), ([], [ALL_MEMORY], 1))

    def test_torch_integration_operators_of_untrusted_namespaces_touch_all_memory(self):
        @torch.library.custom_op("acs_test::twice", mutates_args=())
        def twice(x: torch.Tensor) -> torch.Tensor:
            return x * 2

        x = torch.randn(5)
        _, begins, _ = self.run_op(lambda: twice(x))
        self.assertEqual(begins[0][2], [ALL_MEMORY])

    def test_torch_integration_inputs_it_cannot_see_make_all_memory_and_let_inner_operators_declare(self):
        s = torch.randn(4, 4).to_sparse()
        _, begins, _ = self.run_op(lambda: torch.add(s, s))
        self.assertEqual(begins[0][2], [ALL_MEMORY], "a sparse input: all memory")
        self.assertTrue(any(b[2] != [ALL_MEMORY] for b in begins[1:]),
                        "operators inside it may still declare their own tensors")

    def test_torch_integration_counters(self):
        before = acs.torch.status()
        torch.mul(torch.randn(3), torch.randn(3))
        after = acs.torch.status()
        self.assertTrue(after["installed"])
        self.assertGreater(after["declared"], before["declared"])
        self.assertGreater(after["operators"], before["operators"])


def run_python(code, env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACS_")}
    env.pop("LD_PRELOAD", None)
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)


class environment(unittest.TestCase):
    def test_torch_integration_without_libacs_nothing_is_built_or_installed(self):
        code = (f"import sys; sys.path.insert(0, {PYTHON_DIR!r}); import acs.torch, torch\n"
                "from acs.torch import _integration as i\n"
                "print(acs.torch.status()['enabled'], i._state['module'] is None, acs.torch.status()['status'])")
        r = run_python(code, {})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("False True acs not loaded"), r.stdout + r.stderr)

    def test_torch_integration_acs_torch_1_enables_it_when_torch_is_imported(self):
        # What `acs run` arranges for ACS_TORCH=1 (acs/torch/launch.py): the boot directory on
        # PYTHONPATH. The program itself never imports acs.
        from acs.torch import launch
        env = launch.environment({"ACS_TORCH": "1", "PYTHONPATH": ""})
        self.assertEqual(env["PYTHONPATH"], launch.BOOT_DIR)
        self.assertNotIn("PYTHONPATH", launch.environment({"ACS_TORCH": "0"}))
        code = ("import sys, torch\n"
                "torch.add(torch.ones(2), torch.ones(2))\n"
                "print('acs.torch' in sys.modules)\n"
                "import acs.torch\n"
                "print(acs.torch.status()['enabled'], acs.torch.status()['installed'], acs.torch.status()['declared'] > 0)")
        r = run_python(code, {"ACS_TORCH": "1", "PYTHONPATH": env["PYTHONPATH"], "LD_PRELOAD": RECORDER})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ["True", "True", "True", "True"], r.stdout + r.stderr)
        r = run_python(code.split("import acs.torch")[0], {"ACS_TORCH": "0", "PYTHONPATH": env["PYTHONPATH"],
                                                          "LD_PRELOAD": RECORDER})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ["False"], "ACS_TORCH=0: the boot code does nothing")

if __name__ == "__main__":
    unittest.main(verbosity=2)
