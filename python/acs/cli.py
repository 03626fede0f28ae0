"""The acs command: `acs run|stats|plot|doctor`, and `python -m acs`, where `run`
runs a Python script with this interpreter instead of a program."""
import argparse
import os
import subprocess
import sys

from . import _doctor, _environment, _library, _stats
from ._version import __version__

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_EPILOG = """\
libacs.so is found in this order: --lib, $ACS_LIB, a copy bundled with the Python
package, an installation (PREFIX/lib/libacs.so beside PREFIX/bin/acs), the source
checkout's build/interpose/libacs.so. `acs doctor` says which one it would use.
"""


def _parser(python_mode):
    prog = "python -m acs" if python_mode else "acs"
    p = argparse.ArgumentParser(
        prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG,
        description="Run CUDA programs with acs: independent kernels issued on one stream "
                    "run concurrently, with identical results.")
    p.add_argument("--version", action="version", version=f"acs {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    what = "a Python script with this interpreter" if python_mode else "a program"
    run = sub.add_parser("run", help=f"run {what} under acs (LD_PRELOAD=libacs.so)",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description=f"Runs {what} with libacs.so appended to LD_PRELOAD and the "
                         "ACS_* settings below set\n(the others keep their values from the "
                         "environment), in place of acs itself:\nits exit status and signals are acs's.",
                         epilog="libacs.so goes last in LD_PRELOAD: libraries already there (a "
                         "sanitizer's runtime, which\nmust come first, or another tool) keep their "
                         "place and see the program's calls as it\nmade them. Another libacs.so "
                         "already there is an error.")
    run.add_argument("--lib", metavar="PATH", help="the libacs.so to preload")
    run.add_argument("--window", metavar="N", help="kernels in flight per device (ACS_WINDOW)")
    run.add_argument("--streams", metavar="N", help="pool streams per device (ACS_STREAMS)")
    run.add_argument("--stats", action="store_true", help="print statistics to stderr at exit (ACS_STATS=1)")
    run.add_argument("--stats-file", metavar="FILE",
                     help="append the machine-readable statistics line to FILE at exit, one per "
                          "process (ACS_STATS_FILE; read it with `acs stats FILE`)")
    run.add_argument("--trace", metavar="FILE.json", help="write a trace (ACS_TRACE; draw it with `acs plot`)")
    run.add_argument("--infer", metavar="MODE", choices=_environment.INFER_MODES,
                     help="footprints of unannotated kernels: alloc (default), const, off (ACS_INFER)")
    run.add_argument("--relay", metavar="MODE", choices=_environment.RELAY_MODES,
                     help="launches of streams with nothing to overlap made by acs's thread while the "
                          "program goes on: auto (default: where the program is busy between "
                          "launches), off, always (ACS_RELAY)")
    if python_mode:
        run.add_argument("-m", dest="module", metavar="MODULE", help="run a module, as python -m does")
        run.add_argument("program", nargs=argparse.REMAINDER, metavar="script.py args")
    else:
        run.add_argument("program", nargs=argparse.REMAINDER, metavar="-- program args")

    stats = sub.add_parser("stats", help="show saved statistics (ACS_STATS_FILE, or a captured stderr)")
    stats.add_argument("file", help="a file with acs-stats: lines ('-': standard input)")
    stats.add_argument("--json", action="store_true", help="print them as JSON")

    sub.add_parser("plot", add_help=False, help="draw a trace (ACS_TRACE) as a PNG: "
                   "acs plot TRACE.json -o out.png (acs plot --help: every option)")

    doctor = sub.add_parser("doctor", help="check this machine; list a program's kernels and their PTX")
    doctor.add_argument("files", nargs="*", metavar="FILE", help="a program or shared library to inspect")
    doctor.add_argument("--lib", metavar="PATH", help="the libacs.so to check")
    doctor.add_argument("--all", action="store_true", help="list every kernel, not the first 40")
    return p


def _fail(message, status=2):
    print(f"acs: error: {message}", file=sys.stderr)
    return status


def _program(args, python_mode):
    program = list(args.program)
    if program and program[0] == "--":
        program = program[1:]
    if python_mode:
        if args.module:
            return [sys.executable, "-m", args.module] + program
        if not program:
            return None
        return [sys.executable] + program
    return program or None


def _run(args, python_mode, command):
    program = _program(args, python_mode)
    if not program:
        return _fail("nothing to run: acs run [options] -- program args"
                     if not python_mode else "nothing to run: python -m acs run [options] script.py args")
    try:
        lib, _ = _library.find(args.lib, command)
        env = _environment.environment(lib, window=args.window, streams=args.streams, stats=args.stats,
                                       stats_file=args.stats_file, trace=args.trace, infer=args.infer,
                                       relay=args.relay)
    except (_library.LibraryNotFound, _environment.UsageError) as e:
        return _fail(str(e))
    sys.stdout.flush()
    sys.stderr.flush()
    try:  # exec: the program's exit status and signals are acs's own
        os.execvpe(program[0], program, env)
    except FileNotFoundError:
        return _fail(f"cannot run {program[0]!r}: no such program", 127)
    except OSError as e:
        return _fail(f"cannot run {program[0]!r}: {e.strerror}", 126)


def _show_stats(args):
    try:
        if args.file == "-":
            records = [_stats.parse_line(l.strip()) for l in sys.stdin if l.startswith(_stats.PREFIX)]
        else:
            records = _stats.read(args.file)
    except OSError as e:
        return _fail(f"cannot read {args.file}: {e.strerror}", 1)
    except ValueError as e:
        return _fail(f"{args.file}: {e}", 1)
    if not records:
        return _fail(f"{args.file} has no '{_stats.PREFIX}' line (run the program with "
                     "acs run --stats-file FILE, or save its stderr with acs run --stats)", 1)
    print(_stats.format_file(records, args.json))
    return 0


def plot_script():
    """scripts/plot_trace.py: inside the package (pip), in the source checkout, or installed."""
    for path in (os.path.join(_PACKAGE_DIR, "plot_trace.py"),
                 os.path.join(_PACKAGE_DIR, "..", "..", "scripts", "plot_trace.py"),
                 os.path.join(_PACKAGE_DIR, "..", "..", "plot_trace.py")):  # PREFIX/share/acs
        if os.path.isfile(path):
            return os.path.normpath(path)
    return None


def _plot(argv):
    script = plot_script()
    if not script:
        return _fail("plot_trace.py is not installed beside acs", 1)
    r = subprocess.run([sys.executable, script] + argv)
    if r.returncode == 3:  # plot_trace.py: matplotlib missing
        print(f"acs: plot needs matplotlib for {sys.executable}: "
              "apt-get install python3-matplotlib, or pip install matplotlib", file=sys.stderr)
    return r.returncode


def main(argv=None, python_mode=False, command=None):
    """Runs the command line `argv` (default sys.argv[1:]); returns the exit status.
    `command`: the path the acs command was started from (finds an installation)."""
    try:
        return _main(sys.argv[1:] if argv is None else list(argv), python_mode, command)
    except BrokenPipeError:  # `acs stats F | head`: the reader left, as for any filter
        sys.stderr.close()
        return 1


def _main(argv, python_mode, command):
    if argv[:1] == ["plot"]:  # plot_trace.py parses its own options
        return _plot(argv[1:])
    parser = _parser(python_mode)
    args = parser.parse_args(argv)
    if args.command == "run":
        return _run(args, python_mode, command)
    if args.command == "stats":
        return _show_stats(args)
    if args.command == "doctor":
        return _doctor.report(args.files, args.lib, command, args.all)
    parser.print_help()
    return 2
