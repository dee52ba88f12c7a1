import time
t=time.time()
from lisa_eas import simulate, SimConfig, EnergyModel
tr = simulate("pixel7pro", "workloads/eas_speedup_ramp.json", config=SimConfig(governor="schedutil", placement="eas", duration_s=0.3))
print(time.time()-t, tr.events, tr.metadata.get('energy', {}).get('total') if isinstance(tr.metadata.get('energy'), dict) else None)
