"""Reading the machine-readable statistics line that ACS_STATS=1 prints at exit,
`acs-stats: key=value key=value ...` (src/stats.cpp), from a captured stderr or
from ACS_STATS_FILE (one such line per process, appended)."""
import json
import re

PREFIX = "acs-stats:"

# (key, what it counts), in the order shown; a key missing from a line is left out.
SECTIONS = [
    ("Kernels", [
        ("kernels_seen", "launches seen"),
        ("dispatched", "dispatched to the pool streams or in graphs"),
        ("independent", "  with nothing to wait for"),
        ("same_stream", "  placed behind their producer"),
        ("events_unneeded", "  whose event was never needed"),
        ("merged", "  merged into their successor"),
        ("in_place", "left on their own stream (every pool stream held by another)"),
        ("passed", "passed straight through"),
    ]),
    ("Ordering", [
        ("dependency_waits", "dependency waits"),
        ("fork_waits", "fork waits"),
        ("join_waits", "join waits"),
        ("barriers", "barriers"),
        ("folds", "folds (window full)"),
        ("mean_occupancy", "mean window occupancy"),
        ("occupancy_sum", "  entries in flight, summed over launches"),
    ]),
    ("Inference", [
        ("functions_ptx", "kernel functions with their PTX read"),
        ("functions_no_ptx", "kernel functions without usable PTX"),
        ("probes_busy", "independent probed launches onto a stream with work pending"),
        ("probes_idle", "independent probed launches onto an idle stream (ACS_PROBE_BACKLOG)"),
        ("probes_launch_bound", "of those, while the host was launch-bound (count with ACS_GRAPH=auto)"),
        ("probe_pauses", "probe pauses: the kernel's code still being read on acs's thread"),
        ("probe_code_waits", "probed launches that read their kernel's layout themselves"),
        ("probe_code_wait_us", "  µs that took on the program's thread"),
        ("condition_changes", "calls that may change whether a launch succeeds (cuFuncSetAttribute...)"),
        ("condition_repeats", "  attribute sets of the value already held: no change"),
    ]),
    ("Issuing threads", [
        ("deferred", "launches issued by acs's threads"),
        ("issue_waits", "waits for them"),
        ("deferred_failures", "launches that failed there"),
        ("relayed", "stepped-aside launches relayed to them (ACS_RELAY)"),
        ("relay_in_place", "stepped-aside launches made at once under ACS_RELAY"),
        ("relay_waits", "calls that waited for a relayed launch not yet made"),
        ("uncopied_attributes", "launches not copyable: launch attributes"),
        ("uncopied_extra", "  arguments passed as extra"),
        ("uncopied_grid", "  a grid beyond the device's limits"),
        ("uncopied_conditions", "  a change of the launch conditions under way, or a context failure"),
        ("uncopied_unproven", "  no success of its kind since the last change"),
        ("uncopied_context", "  not the primary context current"),
        ("uncopied_layout", "  parameter layout unknown"),
    ]),
    ("Graph replay (ACS_GRAPH=auto|pool)", [
        ("graphs_built", "graph executables instantiated"),
        ("graph_replays", "segments launched as a graph"),
        ("graph_kernels", "  kernels in them (auto)"),
        ("graph_updates", "  through an executable updated in place"),
        ("graph_relayed", "  updated and launched by acs's issuing thread (auto)"),
        ("graph_evictions", "executables evicted from the cache"),
        ("graph_call_by_call", "segments replayed call by call (auto: held, then the stream path)"),
        ("graph_failures", "replayed calls that failed"),
        ("graph_skimmed", "segments not examined for recurrence (auto: ACS_GRAPH_SAMPLE)"),
        ("graph_flush_sync", "flushes: a synchronize"),
        ("graph_flush_create", "flushes: creating or destroying"),
        ("graph_flush_other", "flushes: another stream"),
        ("graph_flush_undetachable", "flushes: a launch issued at once"),
        ("graph_flush_explicit", "flushes: a device-wide operation"),
        ("graph_flush_limit", "flushes: the segment's length limit"),
        ("graph_flush_idle", "flushes: the idle time"),
        ("graph_flush_barrier", "flushes: direct work on, or a join of, a stream"),
        ("graph_plain_small", "call by call: fewer than two kernels"),
        ("graph_plain_undescribed", "call by call: a kernel not describable"),
        ("graph_plain_bare_stream", "call by call: a stream without kernels"),
        ("graph_plain_new_shape", "call by call: shape not recurring yet"),
        ("graph_plain_failed", "call by call: a graph call failed"),
    ]),
    ("Errors", [
        ("launch_errors", "launch errors"),
        ("join_failures", "join failures"),
        ("host_joins", "host joins after a failure"),
    ]),
    ("Measured on the GPU (CUPTI)", [
        ("achieved_concurrency", "achieved concurrency (kernels at once)"),
        ("busy_fraction", "GPU busy fraction"),
        ("peak_concurrency", "peak concurrency"),
        ("measured_kernels", "kernels measured"),
        ("measured_span_us", "span (us)"),
    ]),
    ("Process", [
        ("devices", "devices"),
        ("pid", "process id"),
    ]),
]
_SHOWN = {key for _, rows in SECTIONS for key, _ in rows} | {"measured"}

# Per device (device<N>_<key>, N the CUDA device ordinal): shown under "Per device".
PER_DEVICE = [
    ("dispatched", "dispatched to the pool streams"),
    ("independent", "  with nothing to wait for"),
    ("dependency_waits", "dependency waits"),
    ("barriers", "barriers"),
    ("in_place", "left on their own stream"),
    ("mean_occupancy", "mean window occupancy"),
]
_PER_DEVICE_KEY = re.compile(r"^device(\d+)_(.+)$")


def _per_device(fields):
    """{ordinal: {key: value}} of the device<N>_<key> fields known to PER_DEVICE."""
    known = {key for key, _ in PER_DEVICE}
    out = {}
    for key, value in fields.items():
        m = _PER_DEVICE_KEY.match(key)
        if m and m.group(2) in known:
            out.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return out


def _value(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _shown(key, value):
    if key == "busy_fraction" and isinstance(value, (int, float)):
        return f"{value:.1%}"
    return f"{value:.2f}" if isinstance(value, float) else value


def parse_line(line):
    """The key=value fields of one `acs-stats:` line, as a dict (numbers as numbers)."""
    if not line.startswith(PREFIX):
        raise ValueError(f"not an {PREFIX} line: {line[:60]!r}")
    fields = {}
    for item in line[len(PREFIX):].split():
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"malformed field {item!r} in an {PREFIX} line")
        fields[key] = _value(value)
    return fields


def read(path):
    """Every `acs-stats:` line of the file (other lines, a program's output, are skipped)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return [parse_line(line.strip()) for line in f if line.startswith(PREFIX)]


def format_fields(fields):
    """Readable lines for one process's statistics."""
    out = []
    for title, rows in SECTIONS:
        shown = [(label, _shown(key, fields[key])) for key, label in rows if key in fields]
        if title.startswith("Measured") and fields.get("measured") == 0:
            shown = [("not measured", "no CUPTI, or another profiler held it")]
        if title == "Kernels":  # the reasons that occurred
            shown += [(f"  passed: {key[5:]}", v) for key, v in fields.items()
                      if key.startswith("pass_") and v != 0]
        if shown:
            out.append(title)
            out += [f"  {label:<42} {value}" for label, value in shown]
    devices = _per_device(fields)
    if devices:
        out.append("Per device")
        for ordinal in sorted(devices):
            out.append(f"  device {ordinal}")
            out += [f"    {label:<40} {_shown(key, devices[ordinal][key])}"
                    for key, label in PER_DEVICE if key in devices[ordinal]]
    per_device_keys = {f"device{n}_{k}" for n, d in devices.items() for k in d}
    other = [f"{k}={v}" for k, v in fields.items()
             if k not in _SHOWN and k not in per_device_keys and not k.startswith("pass_")]
    if other:
        out.append("Other")
        out.append("  " + " ".join(other))
    return out


def format_file(records, as_json=False):
    if as_json:
        return json.dumps(records, indent=2)
    out = []
    for i, fields in enumerate(records):
        if len(records) > 1:
            out.append(f"== process {i + 1} of {len(records)}"
                       + (f" (pid {fields['pid']})" if "pid" in fields else ""))
        out += format_fields(fields)
    return "\n".join(out)
