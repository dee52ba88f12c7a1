import lzma, tempfile, cProfile, pstats
from lisa_eas import read_trace
d=tempfile.mkdtemp()
p=d+'/a.dat'; open(p,'wb').write(lzma.open('tests/data/traces/dat/lisa_juno-r0_sched_load.dat.xz').read())
a=read_trace(p,cache=False)
a.to_perfetto(p+'.x')
cProfile.run("a.to_perfetto(p+'.y')", '/tmp/i19prof')
pstats.Stats('/tmp/i19prof').sort_stats('cumtime').print_stats(15)
