import cProfile, pstats, time, resource
from lisa_eas import read_trace
read_trace('/tmp/lisa_eas_bench/warmup.perfetto-trace', cache=False)
r0=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1e6
for i in range(2):
    t=time.time(); c=time.process_time()
    tr=read_trace('/tmp/lisa_eas_bench/bench.perfetto-trace', cache=False)
    print(time.time()-t, time.process_time()-c, r0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1e6)
    del tr
cProfile.run("tr=read_trace('/tmp/lisa_eas_bench/bench.perfetto-trace', cache=False)", '/tmp/i19prof3')
pstats.Stats('/tmp/i19prof3').sort_stats('tottime').print_stats(18)
