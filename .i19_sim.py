import time
t=time.time()
from lisa_eas import simulate, SimConfig
tr = simulate("hikey960", "workloads/eas_speedup_ramp.json", config=SimConfig(governor="schedutil", placement="eas"))
print(time.time()-t)
for e in tr.events:
    df=tr.df(e); print(e, len(df), {c:str(t) for c,t in df.dtypes.items()})
print({k:v for k,v in tr.metadata.items() if k not in ('energy',)}.keys())
