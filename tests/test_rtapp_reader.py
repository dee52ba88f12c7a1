"""Reading rt-app JSON into the model: the whole corpus, identity of read -> write -> read,
and precise errors for bad input."""
from __future__ import annotations

import json

import pytest
from conftest import DATA

from lisa_eas.errors import WorkloadError
from lisa_eas.rtapp import (Barrier, Fork, IORun, Lock, Mem, Policy, Resume, Run, RunTime, Signal,
                            Sleep, Suspend, Sync, Timer, Unlock, Wait, Yield, read_workload,
                            workload_from_json)

CORPUS_DIR = DATA / "rtapp" / "json"
CORPUS = sorted(CORPUS_DIR.rglob("*.json"))

# file -> (line:col, key, a word of the message): files rt-app itself cannot run
REJECTED = {
    "lisa/mp3-short_template.json": ("59:16", "duration", "placeholder"),
    "rt-app-historic/taskset.json": ("4:10", "exec", "0.x grammar"),
    "rt-app-historic/taskset-randexec.json": ("5:10", "exec", "0.x grammar"),
    "rt-app/merge/global.json": ("1:1", None, "no \"tasks\""),
    "rt-app/merge/resources.json": ("1:1", None, "no \"tasks\""),
    "rt-app/merge/thread0.json": ("4:10", "exec", "0.x grammar"),
    "rt-app/merge/thread1.json": ("4:10", "exec", "0.x grammar"),
    "rt-app/merge/thread2.json": ("4:10", "exec", "0.x grammar"),
    "rt-app/merge/thread3.json": ("4:10", "exec", "0.x grammar"),
}


def _rel(p):
    return p.relative_to(CORPUS_DIR).as_posix()


def test_corpus_is_all_here():
    assert len(CORPUS) == 41


@pytest.mark.parametrize("path", CORPUS, ids=_rel)
def test_corpus_reads_or_is_rejected_precisely(path):
    rel = _rel(path)
    if rel in REJECTED:
        pos, key, word = REJECTED[rel]
        with pytest.raises(WorkloadError) as ei:
            read_workload(path)
        msg = str(ei.value)
        assert msg.startswith(f"{path}:{pos}:"), msg
        if key:
            assert repr(key) in msg
        assert word in msg
        return
    wl = read_workload(path)
    assert wl.tasks
    # read -> write -> read is the identity, and the written text is strict JSON
    text = wl.to_json()
    json.loads(text)
    assert workload_from_json(text, "rewritten") == wl
    assert workload_from_json(text).to_json() == text


def test_events_keep_order_and_repeats():
    wl = read_workload(CORPUS_DIR / "rt-app" / "mp3-short.json")
    assert wl.task("AudioOut").phases[0].events == (
        Run(275), Resume("AudioTrack"), Run(4725), Suspend("AudioOut"))
    dec = wl.task("mp3.decoder").phases[0].events
    assert dec == (Suspend("mp3.decoder"), Run(1000), Lock("mutex"), Signal("queue"),
                   Wait("queue", "mutex"), Unlock("mutex"), Run(150))
    tick = wl.task("AudioTick")
    assert tick.priority == -19 and tick.cpus == (0,) and tick.loop == -1
    assert [p.loop for p in tick.phases] == [1, 4]
    assert tick.phases[0].events == (Resume("AudioOut"), Timer(6000, ref="tick"))
    assert wl.global_settings.extra == (("frag", 1),)  # kept, reported, written back
    assert ("global", "frag") in wl.unknown_keys()
    assert '"frag": 1' in wl.to_json()


def test_suffixed_keys_barrier_runtime_and_more():
    ex7 = read_workload(CORPUS_DIR / "rt-app" / "tutorial" / "example7.json")
    assert ex7.task("task0").phases[0].events == (
        RunTime(1000), Sleep(2000), Barrier("FIRST"), RunTime(2000), Barrier("SECOND"),
        RunTime(1000), Sleep(2000), Barrier("THIRD"))
    assert ex7.global_settings.ftrace == "main,task,loop,event"
    ex6 = read_workload(CORPUS_DIR / "rt-app" / "tutorial" / "example6.json")
    assert ex6.task("thread0").phases[0].events == (Run(1000), Mem(1000), Sleep(5000), IORun(100000))
    assert ex6.global_settings.mem_buffer_size == 1048576
    ex9 = read_workload(CORPUS_DIR / "rt-app" / "tutorial" / "example9.json")
    assert ex9.task("thread2").instance == 0
    assert ex9.task("thread3").phases[1].events[0] == Fork("thread2")
    assert any("fork" in w for w in ex9.rtapp1_warnings())
    ex11 = read_workload(CORPUS_DIR / "rt-app" / "tutorial" / "example11.json")
    assert [p.taskgroup for p in ex11.task("thread0").phases] == ["/tg1/tg11", None, "/"]
    br = read_workload(CORPUS_DIR / "rt-app" / "browser-short.json")
    assert Sync("queue11", "mutex11") in br.task("BrowserDisplay").phases[0].events


def test_policies_deadline_and_bare_suspend():
    dl = read_workload(CORPUS_DIR / "rt-app-historic" / "deadline_reclaim-5.json")
    t = dl.task("thread2")
    assert (t.instance, t.dl_runtime_us, t.dl_period_us) == (2, 2000, 10000)
    assert dl.global_settings.default_policy is Policy.DEADLINE
    assert t.extra == (("dl-reclaim", True),)
    cs = read_workload(CORPUS_DIR / "rt-app" / "custom-slice.json")
    assert cs.task("thread1").policy is Policy.DEADLINE and cs.task("thread0").priority == -19
    video = read_workload(CORPUS_DIR / "rt-app" / "video-short.json")
    # workgen fills a bare "suspend" with the thread's own name
    assert video.task("surfaceflinger").phases[0].events[0] == Suspend("surfaceflinger")
    assert video.task("DispSync").phases[1].events == (Suspend("DispSync"), Run(30))
    assert video.task("CodecLooper2").phases[0].events[-2] == Suspend("CodecLooper2")


def test_repeated_phase_names_are_kept():
    wl = read_workload(CORPUS_DIR / "rt-app" / "spreading-tasks.json")
    # json-c would keep only the second "heavy1"; both are kept, the second renamed
    assert [(p.name, p.loop) for p in wl.task("thread2").phases] == [
        ("light1", 900), ("heavy1", 600), ("light2", 300), ("heavy1-2", 600)]


def test_strict_mode_rejects_unknown_keys_with_position():
    with pytest.raises(WorkloadError, match=r"mp3-short.json:\d+:\d+: key 'frag': unknown key in global"):
        read_workload(CORPUS_DIR / "rt-app" / "mp3-short.json", strict=True)


def test_rtapp1_warnings():
    wl = workload_from_json('{"global": {"log_size": "file", "ftrace": "main"}, "tasks": {"t": '
                            '{"loop": 5, "util_min": 100, "run": 10, "sleep": 10}}}')
    w = "\n".join(wl.rtapp1_warnings())
    assert "log_size" in w and "ftrace" in w and "util_min" in w and "phase-less" in w


def _err(text):
    with pytest.raises(WorkloadError) as ei:
        workload_from_json(text, "w.json")
    return str(ei.value)


@pytest.mark.parametrize("text, start, words", [
    ('{"tasks": {"t": {"run": -5}}}', "w.json:1:25: key 'run':", ["minimum 0"]),
    ('{"tasks": {"t": {"run": "x"}}}', "w.json:1:25: key 'run':", ["integer"]),
    ('{"tasks": {"t": {"run": 1.5}}}', "w.json:1:25: key 'run':", ["integer"]),
    ('{"tasks": {"t": {"timer": {"ref": "a", "period": -16000}}}}', "w.json:1:50: key 'period':",
     ["minimum 1"]),
    ('{"tasks": {"t": {"timer": {"ref": "a"}}}}', "w.json:1:27: key 'timer':", ["period"]),
    ('{"tasks": {"t": {"timer": {"period": 5, "mod": "x"}}}}', "w.json:1:41: key 'mod':", ["allowed"]),
    ('{"tasks": {"t": {"timer": {"period": 5, "mode": "x"}}}}', "w.json:1:49: key 'mode':",
     ["relative"]),
    ('{"tasks": {"t": {"policy": "SCHED_FOO", "run": 1}}}', "w.json:1:28: key 'policy':",
     ["SCHED_FIFO"]),
    ('{"tasks": {"t": {"cpus": 1, "run": 1}}}', "w.json:1:26: key 'cpus':", ["array"]),
    ('{"tasks": {"t": {"cpus": [-1], "run": 1}}}', "w.json:1:27: key 'cpus':", [">= 0"]),
    ('{"tasks": {"t": {"loop": 2, "loop": 3, "run": 1}}}', "w.json:1:29: key 'loop':",
     ["repeated", "1:18"]),
    ('{"tasks": {"t": {"loop": 0, "run": 1}}}', "w.json:1:26: key 'loop':", ["runs nothing"]),
    ('{"tasks": {"t": {"util_max": 2000, "run": 1}}}', "w.json:1:30: key 'util_max':", ["1024"]),
    ('{"tasks": {"t": {"run",}}}', "w.json:1:18: key 'run':", ["without a value"]),
    ('{"tasks": {"t": {"loop": 1}}}', "w.json:1:12: key 't':", ["no events"]),
    ('{"tasks": {"t": {"run": 1, "phases": {"p": {"run": 1}}}}}', "w.json:1:28: key 'phases':",
     ["both"]),
    ('{"tasks": {"t": {"phases": {"p": {"loop": 2}}}}}', "w.json:1:29: key 'p':", ["no events"]),
    ('{"tasks": {}}', "w.json:1:11: key 'tasks':", ["non-empty"]),
    ('{"tasks": {"t": {"run": 1}, "t": {"run": 2}}}', "w.json:1:29: key 't':", ["repeated"]),
    ('{"global": {"calibration": "CPUx"}, "tasks": {"t": {"run": 1}}}',
     "w.json:1:28: key 'calibration':", ["CPU<n>"]),
    ('{"global": {"duration": "5"}, "tasks": {"t": {"run": 1}}}', "w.json:1:25: key 'duration':",
     ["integer"]),
    ('{"global": {"log_size": "big"}, "tasks": {"t": {"run": 1}}}', "w.json:1:25: key 'log_size':",
     ["file"]),
    ('{"global": {"gnuplot": 1}, "tasks": {"t": {"run": 1}}}', "w.json:1:24: key 'gnuplot':",
     ["true or false"]),
    ('{"tasks": {"t": {"wait": "q", "run": 1}}}', "w.json:1:26: key 'wait':", ["mutex"]),
    ('{"tasks": {"t": {"lock_order": ["a"], "run": 1}}}', "w.json:1:18: key 'lock_order':",
     ["0.x grammar"]),
    ('{"tasks": {"t": {"run": 1, "x": 1, "x": 2}}}', "w.json:1:36: key 'x':", ["repeated", "1:28"]),
])
def test_bad_input_names_file_position_key_and_fix(text, start, words):
    msg = _err(text)
    assert msg.startswith(start), msg
    for w in words:
        assert w in msg, msg
    assert ";" in msg


def test_unreadable_files(tmp_path):
    with pytest.raises(WorkloadError, match="no such file"):
        read_workload(tmp_path / "missing.json")
    with pytest.raises(WorkloadError, match="is a directory"):
        read_workload(tmp_path)
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"tasks": {"t\xe9": {"run": 1}}}')
    with pytest.raises(WorkloadError, match="not UTF-8"):
        read_workload(bad)


def test_unknown_event_like_keys_are_kept_in_order():
    wl = workload_from_json('{"tasks": {"t": {"phases": {"p": {"run": 1, "memrun": {"size": 4}, '
                            '"yield": "", "sem_post": "s"}}}}}')
    ph = wl.task("t").phases[0]
    assert ph.events == (Run(1), Yield(""))
    assert ph.extra == (("memrun", {"size": 4}), ("sem_post", "s"))
    assert workload_from_json(wl.to_json()) == wl


def test_empty_suspend_is_the_task_itself():
    wl = workload_from_json('{"tasks": {"me": {"suspend": "", "run": 5}}}')
    assert wl.task("me").phases[0].events == (Suspend("me"), Run(5))


def test_nominal_durations_and_blocking_phases():
    ex5 = read_workload(CORPUS_DIR / "rt-app" / "tutorial" / "example5.json")
    t0, t1 = ex5.tasks
    assert [p.duty_cycle for p in t0.phases] == [0.0, 0.6] and t0.duration_us == 10000 + 8 * 200000
    assert t1.phases[0].blocks and t1.phases[0].duty_cycle is None and t1.duration_us is None
    assert ex5.duration_s is None  # thread1's pace is set by thread0, and no global duration
    ex3 = read_workload(CORPUS_DIR / "rt-app" / "tutorial" / "example3.json")
    assert ex3.duration_s == pytest.approx(0.6)
    assert read_workload(CORPUS_DIR / "rt-app" / "mp3-short.json").duration_s == 6.0  # global cap
