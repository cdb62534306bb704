import sys, faulthandler; faulthandler.dump_traceback_later(25, exit=True)
sys.path.insert(0, 'bench')
import benchlib, bench_memsock
vp = benchlib.vulpy()
rec = benchlib.Recorder("memsock", "x")
fill, pp, a, b = bench_memsock._kernels(vp)
bench_memsock._throughput(vp, rec, fill, vp.default_context(), "64KiB", 64 << 10, False, False)
print(rec.records)
