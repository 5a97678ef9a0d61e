#!/usr/bin/python3
"""bench_pysweep: what checking Python files costs (docs/python-sweeps.md, "Cost").

  1. a 5,000-line training script that defines no sweep (it imports wandb and logs to it): the byte
     scan finds no sweep call, so no python3 starts (goal: < 50 ms a file, start-up included)
  2. the same script with a wandb.sweep(dict) in it: python3 reads it (its start-up is the cost)
  3. a notebook of 200 cells, outputs included, that defines no sweep

Each is the median wall and CPU time (user + system of sweeplint and its children) of N runs of the
whole process (`sweeplint check -q FILE`, output to /dev/null), with the load average printed. Not a
test: figures depend on the machine. usage: bench_pysweep.py SWEEPLINT [RUNS]
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

BODY = '''
def step_{i}(model, batch, optimizer, scheduler):
    """Training step {i}: forward, loss, backward, a logged metric."""
    outputs = model(**batch)
    loss = outputs.loss / {acc}
    loss.backward()
    if ({i} + 1) % {acc} == 0:
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    wandb.log({{"train/loss_{i}": loss.item(), "lr": scheduler.get_last_lr()[0]}})
    return loss.item()
'''


def script(lines, with_sweep):
    head = ["import math", "import torch", "import wandb", "from transformers import AutoModel", ""]
    tail = ['sweep_config = {"method": "grid", "parameters": {',
            '    "model_name_or_path": {"values": ["bert-base-uncased", "bert-large-uncased"]},',
            '    "per_device_train_batch_size": {"values": [8, 16, 32]}}}',
            'sweep_id = wandb.sweep(sweep_config, project="bench")'] if with_sweep else []
    out = list(head)
    i = 0
    while len(out) < lines - len(tail):
        out.extend(BODY.format(i=i, acc=1 + i % 4).split("\n"))
        i += 1
    out = out[:lines - len(tail)] + tail
    assert len(out) == lines
    return "\n".join(out) + "\n"


def notebook(cells):
    cs = []
    for i in range(cells):
        cs.append({"cell_type": "code", "execution_count": i, "metadata": {}, "source": BODY.format(i=i, acc=2),
                   "outputs": [{"output_type": "stream", "name": "stdout", "text": ["loss %d\n" % i] * 20}]})
        cs.append({"cell_type": "markdown", "metadata": {}, "source": ["## step %d\n" % i, "Some text."]})
    return json.dumps({"cells": cs, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4,
                       "nbformat_minor": 5}, indent=1)


def measure(exe, path, runs):
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([exe, "check", "-q", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main():
    exe = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    with tempfile.TemporaryDirectory() as d:
        cases = []
        for name, text in (("5,000-line script, no sweep", script(5000, False)),
                           ("5,000-line script with wandb.sweep(dict)", script(5000, True)),
                           ("notebook, 400 cells with outputs, no sweep", notebook(200))):
            ext = ".ipynb" if name.startswith("notebook") else ".py"
            path = os.path.join(d, "case%d%s" % (len(cases), ext))
            with open(path, "w") as f:
                f.write(text)
            cases.append((name, path, len(text)))
        print("load average: %.2f %.2f %.2f" % os.getloadavg())
        for name, path, size in cases:
            wall, cpu = measure(exe, path, runs)
            print("%-44s %7d bytes  wall %6.1f ms  cpu %6.1f ms  (median of %d)" % (name, size, wall * 1e3, cpu * 1e3,
                                                                                   runs))


if __name__ == "__main__":
    main()
