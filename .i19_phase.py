import time, numpy as np
from lisa_eas.trace import _perfetto as P, _pbwire as W
from lisa_eas.trace._perfetto_schema import kind_tables
from lisa_eas import read_trace
read_trace('/tmp/lisa_eas_bench/warmup.perfetto-trace', cache=False)
path='/tmp/lisa_eas_bench/bench.perfetto-trace'
buf=P._map(path); buf.sum()
c=time.process_time(); pk,_,_=P._scan(buf); print('scan', time.process_time()-c, len(pk))
b=pk[pk[:,W.PK_FIELD]==1]
kinds, kind_of, col_of, col_str, k_ncols = kind_tables()
bstart=np.ascontiguousarray(b[:,W.PK_DSTART]); blen=np.ascontiguousarray(b[:,W.PK_DLEN])
unk=np.zeros(len(kind_of),np.int64)
c=time.process_time(); bounds=W.bundle_bounds(buf,bstart,blen,kind_of,len(kinds),unk); print('bounds', time.process_time()-c)
c=time.process_time(); r=P._Reader(path, False); r.buf=buf; r.rails={"desc":{},"rows":[]}; r.batt=[]; r.ptree=[]; r.fstats=[]; r._ftrace(b); print('ftrace total', time.process_time()-c)
orig=W.decode_bundles
def timed(*a):
    c=time.process_time(); r=orig(*a); print('  decode_bundles', time.process_time()-c); return r
W.decode_bundles=timed
origs=P._strings
tot=[0.0]
def ts(*a, **k):
    c=time.process_time(); r=origs(*a, **k); tot[0]+=time.process_time()-c; return r
P._strings=ts
origf=P._frame
tf=[0.0]
def tfr(*a):
    c=time.process_time(); r=origf(*a); tf[0]+=time.process_time()-c; return r
P._frame=tfr
origc=P.comm_column
tc=[0.0]
def tcc(*a):
    c=time.process_time(); r=origc(*a); tc[0]+=time.process_time()-c; return r
P.comm_column=tcc
for i in range(2):
    tot[0]=0; tf[0]=0
    c=time.process_time(); r=P._Reader(path, False); fr,_,_=r.read(); print('read total', time.process_time()-c, 'strings', tot[0], 'frame', tf[0], 'comm', tc[0]); tc[0]=0
