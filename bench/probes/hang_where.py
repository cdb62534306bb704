"""Runs a script and, if it is still running after SECONDS, prints every
thread's Python stack and exits (where a run that hangs on a device waits).

    python bench/probes/hang_where.py SECONDS SCRIPT [ARGS...]
"""
import faulthandler
import runpy
import sys

secs = float(sys.argv[1])
sys.argv = sys.argv[2:]
faulthandler.dump_traceback_later(secs, exit=True)
runpy.run_path(sys.argv[0], run_name="__main__")
faulthandler.cancel_dump_traceback_later()
