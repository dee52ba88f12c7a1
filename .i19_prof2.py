import cProfile, pstats, time, resource
from lisa_eas import read_trace
read_trace('/tmp/lisa_eas_bench/warmup.perfetto-trace', cache=False)
t=time.time(); c=time.process_time()
cProfile.run("tr=read_trace('/tmp/lisa_eas_bench/bench.perfetto-trace', cache=False)", '/tmp/i19prof2')
print(time.time()-t, time.process_time()-c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1e6)
pstats.Stats('/tmp/i19prof2').sort_stats('tottime').print_stats(14)
