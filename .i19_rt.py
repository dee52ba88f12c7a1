import lzma, tempfile, sys, time
import numpy as np, pandas as pd
from lisa_eas import read_trace
d=tempfile.mkdtemp()
srcs=[]
p=d+'/a.dat'; open(p,'wb').write(lzma.open('tests/data/traces/dat/lisa_juno-r0_sched_load.dat.xz').read()); srcs.append(p)
p=d+'/b.pb'; open(p,'wb').write(lzma.open('tests/data/traces/perfetto/spirals_pixel7pro_cheetah_compact_sched_power_rails.perfetto-trace.xz').read()); srcs.append(p)
p=d+'/c.pb'; open(p,'wb').write(lzma.open('tests/data/traces/perfetto/systing_x86_22cpu_compact_sched.pb.xz').read()); srcs.append(p)
for p in srcs:
    a=read_trace(p,cache=False)
    t=time.time(); out=a.to_perfetto(p+'.out.pftrace'); print('write',time.time()-t)
    b=read_trace(out,cache=False)
    print(p, a.events==b.events, set(a.events)^set(b.events), b.skipped)
    for e in a.events:
        if e not in b.events: continue
        x=a.df(e); y=b.df(e)
        if len(x)!=len(y): print(' LEN',e,len(x),len(y)); continue
        x=x.reset_index().sort_values(['__ts','__cpu'],kind='stable').reset_index(drop=True)
        y=y.reset_index().sort_values(['__ts','__cpu'],kind='stable').reset_index(drop=True)
        for c in x.columns:
            if c not in y.columns: print(' MISSING',e,c); continue
            xa, ya = x[c], y[c]
            if str(xa.dtype)!=str(ya.dtype): print(' DTYPE',e,c,xa.dtype,ya.dtype)
            if not (xa.astype(str).values==ya.astype(str).values).all():
                bad=(xa.astype(str).values!=ya.astype(str).values)
                print(' DIFF',e,c,bad.sum(), list(zip(xa[bad][:3],ya[bad][:3])))
        for c in y.columns:
            if c not in x.columns: print(' EXTRA',e,c)
