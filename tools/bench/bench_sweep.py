#!/usr/bin/python3
"""bench_sweep: sweeplint check against its goals, side by side in one run.

  1. `sweeplint check` vs `yamllint -d relaxed` on the same sweep (goal: >= 50x faster), run in
     turn (sweeplint, yamllint, sweeplint, ...) and compared pair by pair, so a drift in the
     machine's speed during the bench moves both sides of each ratio
  2. a 2x10^12 grid with four memory axes (goal: < 50 ms)
  3. 10^7 memory-relevant combinations (goal: < 1 s, peak RSS < 50 MB)
  4. 10^7 combinations over seven memory axes whose terms depend on only some of them
     (model x batch x length x eval batch x LoRA rank x workers x accumulation; same goal)

Wall and CPU time (user + system) are medians of N runs of the whole process (start-up included,
output to /dev/null), with the load average printed; peak RSS comes from one more run under /usr/bin/time -f %M. Not a test: figures depend on the
machine. usage: bench_sweep.py SWEEPLINT [RUNS]
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

BI_ENCODER = "fixtures/sweeps/bi-encoder.yaml"

# four memory axes (4 x 5 x 4 x 2 = 160 combinations) times 1.25e10 of the rest = 2e12
HUGE_GRID = """program: train.py
method: grid
parameters:
  model.bi_model: {values: [ko-simcse, bge-m3-ko, multilingual-minilm, multilingual-e5-small]}
  data.batches.bi: {values: [16, 32, 64, 128, 256]}
  model.max_len: {values: [128, 256, 384, 512]}
  trainer.gradient_checkpointing: {values: [true, false]}
  seed: {distribution: int_uniform, min: 1, max: 12500000000}
"""

# 10 models x 100 batches x 1000 lengths x 2 GC x 5 attention = 10^7 memory combinations
TEN_MILLION = """program: train.py
method: grid
parameters:
  model: {values: [bert-base-uncased, roberta-base, xlm-roberta-base, t5-small, gpt2, bge-m3-ko,
                   ko-simcse, multilingual-e5-small, electra-base-discriminator, bart-base]}
  batch_size: {distribution: int_uniform, min: 1, max: 100}
  max_seq_length: {distribution: int_uniform, min: 1, max: 1000}
  gradient_checkpointing: {values: [true, false]}
  attn_implementation: {values: [eager, sdpa, flash_attention_2, default, auto]}
"""

# 10 models x 10 batches x 10 lengths x 10 eval batches x 10 LoRA ranks x 10 workers x 10
# accumulation steps = 10^7: host RAM ignores the eval batch, the eval peak ignores the training
# batch and the accumulation, the workers only touch host RAM (issue 18)
SEVEN_AXES = """program: train.py
method: grid
parameters:
  model: {values: [bert-base-uncased, roberta-base, xlm-roberta-base, t5-small, gpt2, bge-m3-ko,
                   ko-simcse, multilingual-e5-small, electra-base-discriminator, bart-base]}
  per_device_train_batch_size: {values: [1, 2, 4, 8, 16, 24, 32, 48, 64, 128]}
  max_seq_length: {values: [64, 128, 192, 256, 320, 384, 448, 512, 768, 1024]}
  per_device_eval_batch_size: {values: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]}
  lora_r: {values: [4, 8, 12, 16, 24, 32, 48, 64, 96, 128]}
  dataloader_num_workers: {values: [0, 1, 2, 3, 4, 6, 8, 12, 16, 32]}
  gradient_accumulation_steps: {values: [1, 2, 3, 4, 5, 6, 8, 10, 12, 16]}
"""


def peak_rss(cmd):
    """Peak RSS in MB of one run under /usr/bin/time -f %M."""
    q = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    return int(q.stderr.strip().splitlines()[-1]) / 1024.0


def run(cmd, runs):
    """Median wall time and median CPU time (user + system) of the bare process (stdout to /dev/null), then peak
    RSS from one more run. On a loaded machine the wall time grows with the load; the CPU time much less."""
    times, cpus = [], []
    for _ in range(runs):
        wall, cpu = cost(cmd)
        times.append(wall)
        cpus.append(cpu)
    return statistics.median(times), peak_rss(cmd), statistics.median(cpus)


def cost(cmd):
    """Wall and CPU seconds (user + system) of one whole-process run, output to /dev/null."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def paired(a, b, runs):
    """Medians of a's and b's wall and CPU times, and of the pair-by-pair ratios b/a, over runs pairs."""
    cost(a), cost(b)  # warm the page cache; not counted
    aw, ac, bw, bc, rw, rc = [], [], [], [], [], []
    for _ in range(runs):
        w1, c1 = cost(a)
        w2, c2 = cost(b)
        aw.append(w1), ac.append(c1), bw.append(w2), bc.append(c2)
        rw.append(w2 / w1)
        if c1 > 0:
            rc.append(c2 / c1)
    m = statistics.median
    return m(aw), m(ac), m(bw), m(bc), m(rw), (m(rc) if rc else float("inf"))


def main():
    exe = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as d:
        huge = os.path.join(d, "huge.yaml")
        ten = os.path.join(d, "ten_million.yaml")
        seven = os.path.join(d, "seven_axes.yaml")
        open(huge, "w").write(HUGE_GRID)
        open(ten, "w").write(TEN_MILLION)
        open(seven, "w").write(SEVEN_AXES)
        chk = [exe, "check", "-q", "-g", "h100-80gb", "-f", "json"]
        first, yaml = [exe, "check", BI_ENCODER], ["yamllint", "-d", "relaxed", BI_ENCODER]
        s, s_cpu, y, y_cpu, ratio, ratio_cpu = paired(first, yaml, runs)
        s_rss, y_rss = peak_rss(first), peak_rss(yaml)
        h, h_rss, h_cpu = run(chk + [huge], runs)
        t, t_rss, t_cpu = run(chk + [ten], runs)
        v, v_rss, v_cpu = run(chk + [seven], runs)
        print("load average %.2f %.2f %.2f; median of %d runs (wall and CPU: user + system)" % (*os.getloadavg(), runs))
        print("%-58s %10s %9s %9s  %s" % ("case", "wall", "CPU", "peak RSS", "goal"))
        rows = [("sweeplint check " + BI_ENCODER, s, s_cpu, s_rss, ""),
                ("yamllint -d relaxed " + BI_ENCODER, y, y_cpu, y_rss,
                 "sweeplint >= 50x faster: %.1fx (CPU %.1fx), medians of the pairs" % (ratio, ratio_cpu)),
                ("2x10^12 grid, 4 memory axes (160 estimated)", h, h_cpu, h_rss, "< 50 ms"),
                ("10^7 memory-relevant combinations", t, t_cpu, t_rss, "< 1 s, < 50 MB"),
                ("10^7 over 7 axes (eval batch, LoRA r, workers, accum)", v, v_cpu, v_rss, "< 1 s, < 50 MB")]
        for name, wall, cpu, rss, goal in rows:
            print("%-58s %7.1f ms %6.1f ms %6.1f MB  %s" % (name, wall * 1e3, cpu * 1e3, rss, goal))


if __name__ == "__main__":
    main()
