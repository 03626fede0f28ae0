"""ctypes callers use the implementation's exported names directly (acs.h
documents them). `ctypes_check.py not_loaded`: they must be absent;
`ctypes_check.py loaded` (under LD_PRELOAD of an implementation): present and
working. Exit status 0 when that holds."""
import ctypes
import sys


class AcsRange(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("bytes", ctypes.c_size_t)]


def main() -> int:
    loaded = len(sys.argv) > 1 and sys.argv[1] == "loaded"
    process = ctypes.CDLL(None)
    next_launch = getattr(process, "acs_v1_next_launch", None)
    if not loaded:
        print("acs_v1_next_launch absent:", next_launch is None)
        return 0 if next_launch is None else 1
    if next_launch is None:
        print("acs_v1_next_launch not found")
        return 1
    buf = ctypes.create_string_buffer(256)
    ranges = (AcsRange * 1)(AcsRange(ctypes.cast(buf, ctypes.c_void_p), 256))
    next_launch.restype = ctypes.c_int
    next_launch.argtypes = [ctypes.POINTER(AcsRange), ctypes.c_size_t, ctypes.POINTER(AcsRange),
                            ctypes.c_size_t, ctypes.c_uint]
    begin = process.acs_v1_scope_begin
    begin.restype, begin.argtypes = next_launch.restype, next_launch.argtypes
    end = process.acs_v1_scope_end
    end.restype, end.argtypes = ctypes.c_int, []
    barrier = process.acs_v1_barrier
    barrier.restype, barrier.argtypes = ctypes.c_int, []
    active = process.acs_v1_active
    active.restype, active.argtypes = ctypes.c_int, []
    statuses = {
        "scope_begin": begin(ranges, 1, None, 0, 1),
        "next_launch": next_launch(None, 0, ranges, 1, 1),
        "barrier": barrier(),
        "scope_end": end(),
        "unbalanced_scope_end": end(),
    }
    print(statuses, "active:", active())
    expected = {"scope_begin": 0, "next_launch": 0, "barrier": 0, "scope_end": 0, "unbalanced_scope_end": 2}
    return 0 if statuses == expected else 1


if __name__ == "__main__":
    sys.exit(main())
