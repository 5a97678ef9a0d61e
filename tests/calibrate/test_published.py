"""published.py: reading published.tsv rows into roles, the metric mapping, the summary and its bars
(a fake estimate runner: no sweeplint, no GPU)."""
import io
import json
import os
import statistics
import tempfile
import unittest

import calib_test_util as u
import compare
import published

MIB = u.MIB


def raw(**kw):
    r = {c: "" for c in published.COLUMNS}
    r.update({"id": "r", "source": "t", "quote": "q", "model": "meta-llama/Llama-2-7b-hf", "task": "causal-lm",
              "batch": "4", "grad_accum": "1", "seq_len": "1024", "target_len": "0", "dtype": "bf16",
              "amp": "off", "gc": "true", "optimizer": "adamw_torch", "method": "full", "lora_r": "-",
              "lora_targets": "-", "attn": "flash", "zero_stage": "0", "num_gpus": "1", "gpu": "a100-80gb",
              "metric": "unspecified", "value_mib": "10000", "confidence": "medium", "notes": ""})
    r.update(kw)
    return r


class ReadRowTest(unittest.TestCase):
    def test_plain_full(self):
        r = published.read_row(raw())
        self.assertIsNone(r.reason)
        self.assertEqual(r.metric, "nvml_used")
        self.assertIn("model=meta-llama/Llama-2-7b-hf", r.roles)
        self.assertIn("batch_size=4", r.roles)
        self.assertIn("gradient_checkpointing=true", r.roles)
        self.assertFalse(any(x.startswith("lora_r=") for x in r.roles))

    def test_rl_tokens_and_left_out(self):
        # issue 31: the algorithm and its settings as role=value tokens in the notes
        r = published.read_row(raw(notes="algorithm=ppo completion_len=512 vllm_gpu_memory_utilization=0.3; "
                                         "reward model of the same architecture"))
        self.assertIsNone(r.reason)
        for role in ("algorithm=ppo", "completion_len=512", "vllm_gpu_memory_utilization=0.3"):
            self.assertIn(role, r.roles)
        # a row its collector marks as left out keeps its reason, up to the next ';'
        r = published.read_row(raw(notes="algorithm=dpo; left out: logits for the completion only; more"))
        self.assertEqual(r.reason, "logits for the completion only")

    def test_nf4_words(self):
        r = published.read_row(raw(method="qlora", dtype="nf4 (quant_storage bf16, nested quant)", amp="bf16 ",
                                   lora_r="8", lora_targets="all-linear"))
        self.assertIsNone(r.reason)
        self.assertIn("quant=nf4", r.roles)
        self.assertIn("dtype=bf16", r.roles)
        self.assertIn("amp=bf16", r.roles)
        self.assertIn("lora_targets=all-linear", r.roles)
        self.assertEqual(r.method, "qlora")

    def test_torchtune_mlp_targets(self):
        r = published.read_row(raw(method="lora", lora_r="8", lora_targets="q_proj,v_proj,output_proj,mlp(w1,w2,w3)"))
        self.assertIn("lora_targets=q_proj,v_proj,output_proj,gate_proj,up_proj,down_proj", r.roles)
        r = published.read_row(raw(method="lora", lora_r="8", lora_targets="q_proj,k_proj,v_proj,output_proj,mlp,output"))
        self.assertIn("LM head", r.reason)

    def test_left_out_with_reasons(self):
        cases = [
            (dict(zero_stage="fsdp-sharded"), "FSDP strategy"),
            (dict(notes="so actual lengths may be shorter"), "the config's cap"),
            (dict(method="xlora"), "peft_method xlora"),
            (dict(optimizer="unknown"), "optimizer"),
            (dict(seq_len=""), "sequence length not stated"),
            (dict(metric="made up"), "metric"),
            (dict(value_mib="n/a"), "value_mib"),
        ]
        for kw, why in cases:
            r = published.read_row(raw(**kw))
            self.assertIsNotNone(r.reason, kw)
            self.assertIn(why, r.reason, kw)
        self.assertEqual(published.read_row(raw(zero_stage="fsdp-full-shard")).method, "fsdp")

    def test_peft_methods(self):
        r = published.read_row(raw(method="ia3", lora_targets="down_proj,k_proj,v_proj"))
        self.assertIsNone(r.reason)
        self.assertIn("peft_method=ia3", r.roles)
        self.assertIn("lora_targets=down_proj,k_proj,v_proj", r.roles)
        r = published.read_row(raw(id="x-prefixtuning-tokens50", method="prefix_tuning", lora_targets="-"))
        self.assertIn("num_virtual_tokens=50", r.roles)
        r = published.read_row(raw(method="prompt_tuning"))
        self.assertIn("num_virtual_tokens=200", r.roles)
        r = published.read_row(raw(method="lora-dora", lora_r="32"))
        self.assertIn("peft_method=dora", r.roles)
        self.assertIn("lora_r=32", r.roles)

    def test_table_methods(self):
        # rules/peft.yaml methods: the rank passed when the column is PEFT's r, not for AdaLoRA (init_r)
        r = published.read_row(raw(method="hira", lora_r="32", lora_targets="q_proj,v_proj"))
        self.assertIsNone(r.reason)
        self.assertIn("peft_method=hira", r.roles)
        self.assertIn("lora_r=32", r.roles)
        r = published.read_row(raw(method="adalora", lora_r="8", lora_targets="q_proj,v_proj"))
        self.assertIn("peft_method=adalora", r.roles)
        self.assertFalse([x for x in r.roles if x.startswith("lora_r=")])
        # OSF: the trainable rank the run's id names
        r = published.read_row(raw(id="peft-mmqa-osf-rank128", method="osf", lora_r="-"))
        self.assertIn("lora_r=128", r.roles)
        # a variant the id states and no role expresses
        r = published.read_row(raw(id="peft-mmqa-deft-rank32-para", method="deft", lora_r="32"))
        self.assertIn("PaRa", r.reason)
        # LoRA-FA: AdamW over lora_B with lora_A frozen
        r = published.read_row(raw(method="lora", lora_r="32", optimizer="lora-fa (AdamW on B only)"))
        self.assertIsNone(r.reason)
        self.assertIn("peft_method=lorafa", r.roles)
        self.assertIn("optimizer=adamw_torch", r.roles)
        self.assertEqual(r.method, "lora")

    def test_runtime_options(self):
        r = published.read_row(raw(optimizer="adamw_torch (step fused into backward)",
                                   notes="+ activation offloading to CPU on top (not an estimator input)"))
        self.assertIsNone(r.reason)
        for role in ("optimizer_in_backward=true", "torch_compile=true", "chunked_ce=true", "optimizer=adamw_torch"):
            self.assertIn(role, r.roles)
        r = published.read_row(raw(notes="packed+compile+chunked CE+AC+activation offloading"))
        for role in ("torch_compile=true", "chunked_ce=true", "activation_offload=true"):
            self.assertIn(role, r.roles)
        r = published.read_row(raw(dtype="nf4", method="qlora", lora_r="8", notes="NF4 via torchao"))
        self.assertIn("torchao", r.reason)

    def test_fsdp(self):
        r = published.read_row(raw(zero_stage="fsdp-full-shard", num_gpus="8"))
        self.assertIsNone(r.reason)
        self.assertIn("fsdp=full_shard", r.roles)
        self.assertIn("num_gpus=8", r.roles)
        self.assertFalse([x for x in r.roles if x.startswith("zero_stage")])
        # CPU offload under FSDP is FSDP's parameter offload, not DeepSpeed's
        r = published.read_row(raw(zero_stage="fsdp-full-shard", notes="fsdp_cpu_offload True"))
        self.assertIn("fsdp_offload=true", r.roles)
        self.assertNotIn("offload=all", r.roles)

    def test_gptq_base(self):
        r = published.read_row(raw(dtype="gptq-int4 (fp16 compute)", amp="fp16", method="qlora", lora_r="64"))
        self.assertIsNone(r.reason)
        self.assertIn("quant=gptq", r.roles)
        self.assertIn("dtype=fp16", r.roles)
        self.assertEqual(r.method, "qlora")

    def test_settings_in_notes(self):
        r = published.read_row(raw(method="lora", lora_r="64",
                                   notes="LoRA on base model: finetune.py sets modules_to_save=['wte','lm_head'] so"))
        self.assertIsNone(r.reason)
        self.assertIn("modules_to_save=embed_tokens,lm_head", r.roles)
        r = published.read_row(raw(notes="+ torch.compile on top of packed; baseline"))
        self.assertIn("torch_compile=true", r.roles)
        self.assertNotIn("chunked_ce=true", r.roles)
        r = published.read_row(raw(notes="+ activation offloading to CPU on top"))
        self.assertIn("activation_offload=true", r.roles)
        r = published.read_row(raw(notes="+ Packed Dataset: packed to 4096, no compile, standard CE, no AC"))
        self.assertIsNone(r.reason)
        self.assertNotIn("torch_compile=true", r.roles)
        r = published.read_row(raw(zero_stage="3+offload", notes="DeepSpeed ZeRO-3 with CPU offload (params+optimizer)"))
        self.assertIsNone(r.reason)
        self.assertEqual([x for x in r.roles if x.startswith("offload=")], ["offload=all"])

    def test_assumed_fields_are_said(self):
        r = published.read_row(raw(seq_len="~64 (tweets, dynamic padding)", gpu="a100 (memory size not stated)"))
        self.assertIsNone(r.reason)
        self.assertIn("seq_len=64", r.roles)
        self.assertTrue(any("seq_len 64" in a for a in r.assumed))
        self.assertTrue(any("gpu" in a for a in r.assumed))

    def test_grad_accum_is_a_role(self):
        self.assertIn("grad_accum=8", published.read_row(raw(grad_accum="8")).roles)
        self.assertFalse(any(x.startswith("grad_accum=") for x in published.read_row(raw(grad_accum="1")).roles))

    def test_fsdp_load_save_tokens_and_framework_defaults(self):
        r = published.read_row(raw(zero_stage="fsdp-full-shard", num_gpus="8",
                                   notes="fsdp_init=device fsdp_state_dict=full_device"))
        self.assertIn("fsdp_init=device", r.roles)
        self.assertIn("fsdp_state_dict=full_device", r.roles)
        # lit-gpt: Lightning's FSDPStrategy keeps the adapters inside the blocks' units; its quantised
        # runs are not kbit-prepared; head and loss in chunks
        lit = dict(source="Lightning-AI/litgpt tutorials/resource-tables.md", method="lora", lora_r="8",
                   lora_targets="q_proj,v_proj")
        r = published.read_row(raw(zero_stage="fsdp-full-shard", num_gpus="2", **lit))
        self.assertIn("fsdp_use_orig_params=true", r.roles)
        self.assertIn("chunked_ce=true", r.roles)
        self.assertFalse(any(x.startswith("kbit_prepare=") for x in r.roles))
        # its resource tables' minibatch of 128 over the micro-batch when the row leaves accumulation at 1
        r = published.read_row(raw(batch="2", grad_accum="1", **lit))
        self.assertIn("grad_accum=64", r.roles)
        r = published.read_row(raw(dtype="nf4", **dict(lit, method="qlora")))
        self.assertIn("kbit_prepare=false", r.roles)
        self.assertIn("bnb_legacy=true", r.roles)  # the tables' header: Bitsandbytes 0.41.1
        self.assertFalse(any(x.startswith("fsdp_use_orig_params=") for x in r.roles))
        r = published.read_row(raw(source="LLaMA-Factory wiki", dtype="nf4", method="qlora", lora_r="8"))
        self.assertIn("kbit_prepare=false", r.roles)
        self.assertNotIn("kbit_prepare=false", published.read_row(raw(source="LLaMA-Factory wiki")).roles)

    def test_bitsandbytes_version(self):
        q = dict(dtype="nf4", method="qlora", lora_r="8")
        self.assertIn("bnb_legacy=true", published.read_row(raw(notes="bitsandbytes 0.41.1", **q)).roles)
        self.assertIn("bnb_legacy=true", published.read_row(raw(notes="bitsandbytes==0.43.1", **q)).roles)
        for notes in ("bitsandbytes 0.43.2", "bitsandbytes 0.45.0", ""):
            self.assertNotIn("bnb_legacy=true", published.read_row(raw(notes=notes, **q)).roles)
        self.assertNotIn("bnb_legacy=true", published.read_row(raw(notes="bitsandbytes 0.41.1")).roles)

    def test_torchtune_configs(self):
        r = published.read_row(raw(zero_stage="fsdp-full-shard", num_gpus="8", notes="fsdp_cpu_offload True in llama3_1/70B_full"))
        self.assertIn("chunked_ce=true", r.roles)
        self.assertIn("fsdp_embedding_units=true", r.roles)
        r = published.read_row(raw(method="lora", lora_r="16", notes="config llama3_1/70B_lora (r16)"))
        self.assertIn("chunked_ce=true", r.roles)
        self.assertNotIn("fsdp_embedding_units=true", r.roles)

    def test_lora_dropout_from_notes(self):
        r = published.read_row(raw(method="lora", lora_r="64", lora_targets="all-linear",
                                   notes="GC on; lora_alpha 16, dropout 0.05; unit 'G'"))
        self.assertIn("lora_dropout=0.05", r.roles)
        r = published.read_row(raw(method="lora", lora_r="64", lora_targets="all-linear", notes="no dropout stated"))
        self.assertFalse(any(x.startswith("lora_dropout=") for x in r.roles))
        r = published.read_row(raw(notes="dropout 0.1"))  # a full fine-tune has no LoRA dropout
        self.assertFalse(any(x.startswith("lora_dropout=") for x in r.roles))

    def test_metric_mapping(self):
        m = lambda **kw: published.read_row(raw(**kw)).metric  # noqa: E731
        self.assertEqual(m(metric="torch_max_reserved_minus_init",
                           notes="init ~2 MiB, so ~= peak reserved"), "torch_reserved")
        self.assertEqual(m(metric="torch_max_reserved_minus_init"), "reserved_minus_init")
        self.assertEqual(m(metric="torch_peak_active"), "torch_allocated")
        self.assertEqual(m(metric="torch_max_allocated (HF Trainer memory tracker, rank 0)"), "torch_allocated")
        self.assertEqual(m(metric="nvml_used (read from nvidia-smi / screenshot)"), "nvml_used")
        self.assertEqual(m(metric="unspecified (W&B system GPU memory, nvml-like)"), "nvml_used")
        self.assertEqual(m(metric="torch_max_reserved"), "torch_reserved")
        # a figure the source does not say how it read: whole device unless it names torch's statistics
        self.assertEqual(m(metric="unspecified"), "nvml_used")
        self.assertEqual(m(metric="unspecified (VRAM)"), "nvml_used")
        self.assertEqual(m(metric="unspecified (torchtune peak active/alloc/reserved, GiB)"), "torch_peak")


def fake_runner(total_mib, ctx_mib=500, slack_mib=100, weights_mib=2000):
    calls = []

    def run(exe, roles, gpu=None):
        calls.append((tuple(roles), gpu))
        if any(r == "model=unknown/x" for r in roles):
            raise compare.EstimateError("sweeplint estimate exited 2: sweeplint: error: unknown model 'unknown/x'")
        return {"total_bytes": total_mib * MIB, "fits": True, "peak_phase": "backward",
                "breakdown": {"cuda_context": ctx_mib * MIB, "slack": slack_mib * MIB,
                              "weights": weights_mib * MIB}}
    run.calls = calls
    return run


class ScoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.exe = os.path.join(self.tmp.name, "sweeplint")
        with open(self.exe, "w") as f:
            f.write("#!/bin/sh\nexit 2\n")
        os.chmod(self.exe, 0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rows):
        path = os.path.join(self.tmp.name, "p.tsv")
        with open(path, "w") as f:
            f.write("\t".join(published.COLUMNS) + "\n")
            for r in rows:
                f.write("\t".join(r[c] for c in published.COLUMNS) + "\n")
        return path

    def test_errors_by_metric_and_summary(self):
        rows = [raw(id="a", value_mib="9000", metric="unspecified (torchtune peak)"),  # torch_peak: 10500-500
                raw(id="b", value_mib="9400", metric="torch_peak_active"),       # allocated: -slack
                raw(id="c", value_mib="10500", metric="nvml_used"),              # whole device
                raw(id="d", method="xlora"),                                   # left out
                raw(id="e", model="unknown/x")]                                  # left out by sweeplint
        path = self.write(rows)
        out = io.StringIO()
        runner = fake_runner(10500)
        rc = published.main([path, "--sweeplint", self.exe, "-f", "json", "--min-expressible", "50",
                             "--median-bar", "12", "--bias-bar", "10"], out=out, runner=runner)
        data = json.loads(out.getvalue())
        got = {r["id"]: r for r in data["rows"]}
        self.assertAlmostEqual(got["a"]["error_pct"], (10000 - 9000) / 9000 * 100)
        self.assertAlmostEqual(got["b"]["error_pct"], (9900 - 9400) / 9400 * 100)
        self.assertAlmostEqual(got["c"]["error_pct"], 0.0)
        self.assertIn("peft_method", got["d"]["left_out"])
        self.assertIn("not in sweeplint's catalog", got["e"]["left_out"])
        s = data["summary"]
        self.assertEqual(s["expressible"], 3)
        errs = [abs(got[k]["error_pct"]) for k in "abc"]
        self.assertAlmostEqual(s["median_abs_pct"], statistics.median(errs))
        self.assertEqual(s["by_method"]["full"]["rows"], 3)
        # 60% expressible passes the 50% bar; median 5.3% passes 12%; bias +5.3% passes 10%
        self.assertEqual(rc, 0)
        self.assertEqual(len(runner.calls), 2)  # one estimate per distinct roles: a, b, c share them; e

    def test_bars_fail(self):
        path = self.write([raw(id="a", value_mib="5000"), raw(id="b", value_mib="5000"),
                           raw(id="c", value_mib="5000"), raw(id="d", method="xlora")])
        out = io.StringIO()
        rc = published.main([path, "--sweeplint", self.exe], out=out, runner=fake_runner(10500))
        text = out.getvalue()
        self.assertEqual(rc, 1)
        self.assertIn("FAIL: expressible 75.0% < 80.0%", text)
        self.assertIn("FAIL: median |error| 110.0%", text)  # unspecified: the whole device, 10500 vs 5000
        self.assertIn("FAIL: method full biased +110.0%", text)
        self.assertIn("d: peft_method", text)

    def test_bad_header_is_usage_error(self):
        path = os.path.join(self.tmp.name, "bad.tsv")
        with open(path, "w") as f:
            f.write("id\tvalue\n")
        err = io.StringIO()
        self.assertEqual(published.main([path, "--sweeplint", self.exe], out=io.StringIO(), err=err), 2)
        self.assertIn("header", err.getvalue())


if __name__ == "__main__":
    unittest.main()
