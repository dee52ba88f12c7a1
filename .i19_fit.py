import lzma, tempfile, time
from lisa_eas import read_trace
from lisa_eas.analysis._emfit import fit_energy_model
from lisa_eas.analysis._power import df_rail_vs_model
d=tempfile.mkdtemp(); p=d+'/t.pb'; open(p,'wb').write(lzma.open('tests/data/traces/perfetto/spirals_pixel7pro_cheetah_compact_sched_power_rails.perfetto-trace.xz').read())
t=read_trace(p,cache=False)
t0=time.time()
fit=fit_energy_model(t, capacity_dmips_mhz=[260,880,997], name="pixel7pro")
print(time.time()-t0)
print(fit.summary.to_string())
for pd_ in fit.platform['perf_domains']:
    print(pd_['name'], pd_['static_power_mw'], pd_['idle_states'], [(o['freq_khz'],o['power_mw'],o['fit_status'],o['fit_busy_s']) for o in pd_['opps']])
plat=fit.to_platform()
print(df_rail_vs_model(t, plat))
