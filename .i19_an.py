import lzma, tempfile, time
from lisa_eas import read_trace
from lisa_eas.analysis import df_cpu_residency, df_task_states, df_frequency_residency, df_energy, df_task_state_residency, df_migrations
d=tempfile.mkdtemp()
for n in ['spirals_pixel7pro_cheetah_compact_sched_power_rails.perfetto-trace','systing_x86_22cpu_compact_sched.pb']:
    p=d+'/'+n; open(p,'wb').write(lzma.open('tests/data/traces/perfetto/'+n+'.xz').read())
    t=read_trace(p,cache=False)
    for f in (df_cpu_residency, df_task_states, df_task_state_residency):
        t0=time.time()
        try: r=f(t); print(n[:10], f.__name__, len(r), round(time.time()-t0,2))
        except Exception as e: print(n[:10], f.__name__, 'ERR', type(e).__name__, e)
    if 'pixel' in n:
        print(df_energy(t, 'pixel7pro'))
        from lisa_eas.analysis.validate import validate
        t0=time.time()
        try:
            r=validate(t, 'pixel7pro'); print('validate', time.time()-t0, {k: (v if not isinstance(v, dict) else {kk:vv for kk,vv in v.items() if not isinstance(vv,(list,dict))}) for k,v in r.summary.items()})
        except Exception as e: print('validate ERR', type(e).__name__, e)
