"""The calibration case list: coverage of the model's terms and complete HF config dicts."""
import json
import unittest

import calib_test_util  # noqa: F401  (puts tools/calibrate on sys.path)
import cases

ROLES = ("model", "task", "batch_size", "grad_accum", "seq_len", "target_len", "dtype", "amp",
         "gradient_checkpointing", "optimizer", "lora_r", "lora_targets", "quant", "attn",
         "texts_per_example", "mode", "eval_batch_size", "mini_batch_size", "modules_to_save", "fsdp",
         "torch_compile", "liger", "num_beams", "max_new_tokens") + tuple(cases.EXTRA_ROLES)

# The arguments of the HF config classes that decide the architecture and its training
# behaviour (BertConfig, RobertaConfig, XLMRobertaConfig, MT5Config, LlamaConfig __init__).
_BERT_KEYS = {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
              "intermediate_size", "hidden_act", "hidden_dropout_prob",
              "attention_probs_dropout_prob", "max_position_embeddings", "type_vocab_size",
              "initializer_range", "layer_norm_eps", "pad_token_id", "position_embedding_type",
              "use_cache", "classifier_dropout"}
REQUIRED = {
    "bert": _BERT_KEYS,
    "roberta": _BERT_KEYS | {"bos_token_id", "eos_token_id"},
    "xlm-roberta": _BERT_KEYS | {"bos_token_id", "eos_token_id"},
    "mt5": {"vocab_size", "d_model", "d_kv", "d_ff", "num_layers", "num_decoder_layers", "num_heads",
            "relative_attention_num_buckets", "relative_attention_max_distance", "dropout_rate",
            "layer_norm_epsilon", "initializer_factor", "feed_forward_proj", "is_encoder_decoder",
            "use_cache", "tokenizer_class", "pad_token_id", "eos_token_id", "decoder_start_token_id",
            "classifier_dropout", "tie_word_embeddings"},
    "t5": {"vocab_size", "d_model", "d_kv", "d_ff", "num_layers", "num_decoder_layers", "num_heads",
           "relative_attention_num_buckets", "relative_attention_max_distance", "dropout_rate",
           "layer_norm_epsilon", "initializer_factor", "feed_forward_proj", "is_encoder_decoder",
           "use_cache", "pad_token_id", "eos_token_id", "decoder_start_token_id", "tie_word_embeddings"},
    "qwen2": {"vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
              "num_attention_heads", "num_key_value_heads", "hidden_act", "max_position_embeddings",
              "initializer_range", "rms_norm_eps", "use_cache", "tie_word_embeddings", "rope_theta",
              "use_sliding_window", "sliding_window", "max_window_layers", "attention_dropout"},
    "qwen3": {"vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
              "num_key_value_heads", "head_dim", "hidden_act", "max_position_embeddings", "initializer_range",
              "rms_norm_eps", "use_cache", "tie_word_embeddings", "rope_theta", "attention_bias",
              "attention_dropout", "use_sliding_window", "max_window_layers"},
    "gemma2": {"vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
               "num_key_value_heads", "head_dim", "hidden_activation", "max_position_embeddings",
               "initializer_range", "rms_norm_eps", "use_cache", "pad_token_id", "rope_theta",
               "attention_bias", "attention_dropout", "query_pre_attn_scalar", "sliding_window",
               "final_logit_softcapping", "attn_logit_softcapping"},
    "phi3": {"vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
             "num_key_value_heads", "hidden_act", "max_position_embeddings", "original_max_position_embeddings",
             "initializer_range", "rms_norm_eps", "use_cache", "tie_word_embeddings", "rope_theta",
             "attention_bias", "attention_dropout", "embd_pdrop", "resid_pdrop", "sliding_window",
             "pad_token_id"},
    "whisper": {"vocab_size", "num_mel_bins", "d_model", "encoder_layers", "decoder_layers",
                "encoder_attention_heads", "decoder_attention_heads", "encoder_ffn_dim", "decoder_ffn_dim",
                "max_source_positions", "max_target_positions", "activation_function", "dropout",
                "attention_dropout", "activation_dropout", "init_std", "scale_embedding", "is_encoder_decoder",
                "use_cache", "pad_token_id", "decoder_start_token_id"},
    "llama": {"vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
              "num_attention_heads", "num_key_value_heads", "head_dim", "hidden_act",
              "max_position_embeddings", "initializer_range", "rms_norm_eps", "use_cache",
              "bos_token_id", "eos_token_id", "pretraining_tp", "tie_word_embeddings", "rope_theta",
              "rope_scaling", "attention_bias", "attention_dropout", "mlp_bias"},
}

# Published parameter counts (research/memory-anchors.md §3; Llama-3.2-1B: 1.24B on its model
# card, 1,235,814,400 in its safetensors index), checked against the test's own arithmetic.
OFFICIAL = {
    "BAAI/bge-m3": 567754752,
    "klue/roberta-base": 110618112,
    "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2": 117653760,
    "google/mt5-base": 582401280,
    "meta-llama/Llama-3.2-1B": 1235814400,
    # T5ForConditionalGeneration.num_parameters() of google-t5/t5-base (223M on the model card)
    "google-t5/t5-base": 222903552,
    # safetensors index / metadata of the model repositories (3.21B and 0.49B on the cards)
    "meta-llama/Llama-3.2-3B": 3212749824,
    "Qwen/Qwen2.5-0.5B": 494032768,
    # issue 33's families: the published classes' counts (rules/architectures.yaml, test_catalog)
    "Qwen/Qwen3-0.6B": 596049920,
    "google/gemma-2-2b": 2614341888,
    "microsoft/Phi-3-mini-4k-instruct": 3821079552,
    "openai/whisper-small": 241734912,
}


def count_params(c):
    """Parameters of the base model (encoders with pooler, seq2seq/causal with lm head)."""
    mt = c["model_type"]
    if mt in ("bert", "roberta", "xlm-roberta"):
        V, h, L, I = c["vocab_size"], c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"]
        emb = V * h + c["max_position_embeddings"] * h + c["type_vocab_size"] * h + 2 * h
        layer = 4 * (h * h + h) + (h * I + I) + (I * h + h) + 2 * (2 * h)
        return emb + L * layer + (h * h + h)
    if mt in ("mt5", "t5"):
        V, d, H, dkv, ff = c["vocab_size"], c["d_model"], c["num_heads"], c["d_kv"], c["d_ff"]
        ffn = (3 if c["feed_forward_proj"].startswith("gated") else 2) * d * ff
        buckets = c["relative_attention_num_buckets"] * H
        enc = c["num_layers"] * (4 * d * H * dkv + ffn + 2 * d) + buckets + d
        dec = c["num_decoder_layers"] * (8 * d * H * dkv + ffn + 3 * d) + buckets + d
        return V * d * (1 if c["tie_word_embeddings"] else 2) + enc + dec
    if mt in ("qwen3", "gemma2", "phi3"):
        V, h, L, I = c["vocab_size"], c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"]
        H, KV = c["num_attention_heads"], c["num_key_value_heads"]
        hd = c.get("head_dim", h // H)
        attn = h * H * hd + 2 * h * KV * hd + H * hd * h  # q, k, v (phi3: fused qkv_proj) and o
        if mt == "qwen3":
            layer = attn + 3 * h * I + 2 * h + 2 * hd  # q_norm and k_norm over head_dim
        elif mt == "gemma2":
            layer = attn + 3 * h * I + 4 * h  # four norms per layer
        else:
            layer = attn + 3 * h * I + 2 * h  # gate_up_proj (2I) and down_proj
        tied = c.get("tie_word_embeddings", True)
        return V * h * (1 if tied else 2) + L * layer + h
    if mt == "whisper":
        h, V, mel = c["d_model"], c["vocab_size"], c["num_mel_bins"]
        ffe, ffd = c["encoder_ffn_dim"], c["decoder_ffn_dim"]
        attn = 4 * h * h + 3 * h  # q, v and out biased, k unbiased
        enc = (mel * h * 3 + h) + (3 * h * h + h) + c["max_source_positions"] * h + \
            c["encoder_layers"] * (attn + 2 * h + h * ffe + ffe + ffe * h + h + 2 * h) + 2 * h
        dec = V * h + c["max_target_positions"] * h + \
            c["decoder_layers"] * (2 * attn + 3 * 2 * h + h * ffd + ffd + ffd * h + h) + 2 * h
        return enc + dec  # proj_out tied to the token embedding
    if mt in ("llama", "qwen2"):
        V, h, L, I = c["vocab_size"], c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"]
        H, KV = c["num_attention_heads"], c["num_key_value_heads"]
        hd = c.get("head_dim", h // H)
        layer = h * H * hd + 2 * h * KV * hd + H * hd * h + 3 * h * I + 2 * h
        if mt == "qwen2":  # q, k and v projections carry biases
            layer += H * hd + 2 * KV * hd
        return V * h * (1 if c["tie_word_embeddings"] else 2) + L * layer + h
    raise AssertionError("no formula for %s" % mt)


class CaseListTest(unittest.TestCase):
    def setUp(self):
        self.all = cases.all_cases()
        self.default = cases.default_cases()

    def test_at_least_40_unique_ids(self):
        ids = [c["id"] for c in self.all]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertGreaterEqual(len(ids), 40)
        self.assertGreaterEqual(len(self.default), 40)

    def test_settings_use_role_names_and_valid_values(self):
        for c in self.all:
            s = c["settings"]
            self.assertEqual(set(s), set(ROLES), c["id"])
            self.assertIn(s["task"], ("bi-encoder", "seq-cls", "seq2seq", "causal-lm"))
            self.assertIn(s["dtype"], ("fp32", "bf16", "fp16"))
            self.assertIn(s["amp"], ("off", "fp16", "bf16"))
            self.assertIn(s["attn"], ("eager", "sdpa", "flash"))
            self.assertIn(s["quant"], ("none", "int8", "nf4"))
            self.assertIn(s["optimizer"], ("adamw_torch", "adafactor", "sgd", "adamw_bnb_8bit"))
            self.assertIsInstance(s["gradient_checkpointing"], bool)
            self.assertEqual(s["model"], cases.ARCHS[c["arch"]]["hf_id"])
            self.assertIn(c["method"], ("full", "lora", "qlora"))
            self.assertEqual(c["method"] != "full", s["lora_r"] > 0, c["id"])
            self.assertEqual(bool(s["lora_targets"]), s["lora_r"] > 0, c["id"])
            if s["amp"] != "off":
                self.assertEqual(s["dtype"], "fp32", "%s: AMP runs on fp32 weights" % c["id"])
            if s["task"] == "bi-encoder":
                self.assertGreaterEqual(s["texts_per_example"], 2)
                self.assertIn(c["pooling"], ("cls", "mean"))
            else:
                self.assertEqual(s["texts_per_example"], 0)
            if s["task"] == "seq2seq":
                self.assertGreater(s["target_len"], 0)
            else:
                self.assertEqual(s["target_len"], 0)
            if c["capacity"] is None:
                self.assertGreater(s["batch_size"], 0, c["id"])
            json.dumps(c)  # handed to a subprocess as JSON

    def test_lengths_fit_the_position_tables(self):
        for c in self.all:
            cfg, s = c["config"], c["settings"]
            if cfg["model_type"] in ("roberta", "xlm-roberta"):
                # RoBERTa positions start after padding_idx: max_position_embeddings - 2 usable
                self.assertLessEqual(s["seq_len"], cfg["max_position_embeddings"] - 2, c["id"])
            elif "max_position_embeddings" in cfg:
                self.assertLessEqual(s["seq_len"], cfg["max_position_embeddings"], c["id"])

    def test_bge_m3_bi_encoder_grid(self):
        got = {(c["settings"]["batch_size"], c["settings"]["seq_len"]) for c in self.default
               if c["arch"] == "bge-m3" and c["settings"]["task"] == "bi-encoder"
               and c["settings"]["amp"] == "fp16" and c["settings"]["gradient_checkpointing"]
               and c["settings"]["attn"] == "sdpa" and c["settings"]["texts_per_example"] == 2}
        for b in (8, 32, 64):
            for s in (128, 256, 512):
                self.assertIn((b, s), got)
        self.assertEqual(cases.ARCHS["bge-m3"]["config"]["max_position_embeddings"], 8194)

    def _dims(self, pool, arch=None):
        return [c["settings"] for c in pool if arch is None or c["arch"] == arch]

    def test_every_dimension_varies_in_the_default_set(self):
        s = self._dims(self.default)
        self.assertEqual({x["amp"] for x in s}, {"off", "fp16", "bf16"})
        self.assertEqual({x["gradient_checkpointing"] for x in s}, {True, False})
        self.assertEqual({x["attn"] for x in s}, {"sdpa", "eager"})
        self.assertTrue({"adamw_torch", "adafactor", "sgd"} <= {x["optimizer"] for x in s})
        self.assertEqual({c["arch"] for c in self.default},
                         {"bge-m3", "klue-roberta-base", "multilingual-minilm", "mt5-base", "llama-3.2-1b"})
        self.assertTrue({"bi-encoder", "seq-cls", "seq2seq", "causal-lm"} <= {x["task"] for x in s})
        # same model, only GC / attention / AMP / optimizer changed
        bge = self._dims(self.default, "bge-m3")

        def has(**kw):
            return any(all(x[k] == v for k, v in kw.items()) for x in bge)
        for flag in (True, False):
            self.assertTrue(has(batch_size=8, seq_len=512, amp="fp16", attn="sdpa",
                                gradient_checkpointing=flag))
            self.assertTrue(has(batch_size=8, seq_len=512, amp="fp16", attn="eager",
                                gradient_checkpointing=flag))
        for opt in ("adamw_torch", "adafactor", "sgd"):
            self.assertTrue(has(batch_size=8, seq_len=256, amp="fp16", gradient_checkpointing=True,
                                optimizer=opt))
        self.assertTrue(has(amp="bf16"))
        self.assertTrue(has(amp="off", dtype="fp32"))
        self.assertTrue(has(texts_per_example=3))

    def test_klue_and_minilm(self):
        klue = self._dims(self.default, "klue-roberta-base")
        self.assertTrue({"seq-cls", "bi-encoder"} <= {x["task"] for x in klue})
        self.assertEqual({x["attn"] for x in klue}, {"sdpa", "eager"})
        minilm = self._dims(self.default, "multilingual-minilm")
        self.assertTrue(minilm and all(x["task"] == "bi-encoder" for x in minilm))

    def test_mt5_source_and_target_lengths(self):
        mt5 = self._dims(self.default, "mt5-base")
        self.assertTrue(all(x["task"] == "seq2seq" for x in mt5))
        pairs = {(x["seq_len"], x["target_len"]) for x in mt5}
        self.assertGreaterEqual(len(pairs), 3)
        self.assertTrue(any(t >= s for s, t in pairs), "a target as long as the source")
        self.assertEqual({x["gradient_checkpointing"] for x in mt5}, {True, False})

    def test_llama_methods(self):
        llama = [c for c in self.all if c["arch"] == "llama-3.2-1b" and not c["capacity"]]
        # bf16 weights without AMP, except the FSDP run with an fp32 master and bf16 compute
        self.assertTrue(all(c["settings"]["dtype"] == "bf16" and c["settings"]["amp"] == "off"
                            for c in llama if not c["settings"]["fsdp"]))
        full = [c for c in llama if c["method"] == "full"]
        self.assertTrue(full)
        ranks = {c["settings"]["lora_r"] for c in llama if c["method"] == "lora"}
        self.assertTrue({8, 64} <= ranks)
        qlora = [c for c in llama if c["method"] == "qlora"]
        self.assertTrue(qlora)
        for c in qlora:
            self.assertEqual(c["settings"]["quant"], "nf4")
            self.assertIn("bitsandbytes", c["requires"])
            self.assertIn("peft", c["requires"])
        self.assertTrue(any(c["default"] for c in qlora))
        self.assertTrue({"adamw_torch", "adafactor", "sgd"} <= {c["settings"]["optimizer"] for c in full})
        for c in llama:
            if (c["method"] == "full" and c["settings"]["optimizer"] != "adamw_bnb_8bit"
                    and not c["settings"]["liger"]):
                self.assertEqual(c["requires"], [])

    def test_capacity_cases_bracket_the_card(self):
        cap = [c for c in self.default if c["capacity"]]
        groups = {}
        for c in cap:
            groups.setdefault(c["capacity"]["group"], []).append(c["capacity"]["frac"])
            self.assertEqual(len(c["capacity"]["probe_batches"]), 2)
            self.assertEqual(c["settings"]["batch_size"], 0)
        self.assertGreaterEqual(len(groups), 2)
        for fracs in groups.values():
            self.assertTrue(any(f < 0.9 for f in fracs), "one case with more than 10% to spare")
            self.assertTrue(any(f > 1.0 for f in fracs), "one case above capacity")


class ConfigTest(unittest.TestCase):
    def test_configs_are_complete(self):
        for key, arch in cases.ARCHS.items():
            cfg = arch["config"]
            missing = REQUIRED[cfg["model_type"]] - set(cfg)
            self.assertFalse(missing, "%s lacks %s" % (key, sorted(missing)))
            self.assertTrue(cfg["architectures"])

    def test_shapes_are_consistent(self):
        for key, arch in cases.ARCHS.items():
            cfg = arch["config"]
            if cfg["model_type"] in ("mt5", "t5"):
                self.assertEqual(cfg["d_kv"] * cfg["num_heads"], cfg["d_model"])
            elif cfg["model_type"] == "whisper":
                self.assertEqual(cfg["d_model"] % cfg["encoder_attention_heads"], 0, key)
            else:
                self.assertEqual(cfg["hidden_size"] % cfg["num_attention_heads"], 0, key)
            if cfg["model_type"] == "llama":
                self.assertEqual(cfg["num_attention_heads"] % cfg["num_key_value_heads"], 0)
                self.assertEqual(cfg["head_dim"] * cfg["num_attention_heads"], cfg["hidden_size"])

    def test_parameter_counts_match_the_published_ones(self):
        for key, arch in cases.ARCHS.items():
            self.assertEqual(count_params(arch["config"]), OFFICIAL[arch["hf_id"]], key)
            self.assertEqual(arch["official_params"], OFFICIAL[arch["hf_id"]], key)

    def test_config_copies_are_independent(self):
        c = cases.hf_config("bge-m3")
        c["vocab_size"] = 1
        self.assertEqual(cases.ARCHS["bge-m3"]["config"]["vocab_size"], 250002)
        self.assertEqual(cases.arch_for_model("baai/BGE-M3"), "bge-m3")
        self.assertIsNone(cases.arch_for_model("bert-large-uncased"))


class SelectTest(unittest.TestCase):
    def test_default_all_and_globs(self):
        self.assertEqual([c["id"] for c in cases.select("default")],
                         [c["id"] for c in cases.all_cases() if c["default"]])
        self.assertEqual(len(cases.select("all")), len(cases.all_cases()))
        got = cases.select("llama1b-*-s1024-*-lora*,cap-bgem3-below")
        ids = [c["id"] for c in got]
        self.assertIn("cap-bgem3-below", ids)
        self.assertTrue(all(i.startswith("llama1b-") or i == "cap-bgem3-below" for i in ids))
        by_id = {c["id"]: c for c in cases.all_cases()}
        self.assertEqual(len([i for i in ids if "-lora" in i and not by_id[i]["value"]]), 3)
        self.assertEqual(len([i for i in ids if "-lora" in i and by_id[i]["value"]]), 2)  # issue 33's DPO
        order = [c["id"] for c in cases.all_cases()]
        self.assertEqual(ids, [i for i in order if i in set(ids)])

    def test_unknown_item_raises(self):
        with self.assertRaises(KeyError):
            cases.select("bgem3-b8-s128-ampfp16-gc-sdpa,no-such-case")


class IssueSetsTest(unittest.TestCase):
    """The GPU issues' case lists: encoders (issue 16) and decoders (issue 17), >= 30 each."""

    def settings(self, spec):
        return [(c, c["settings"]) for c in cases.select(spec)]

    def test_sets_partition_all_cases(self):
        enc, dec = cases.select("encoders"), cases.select("decoders")
        self.assertGreaterEqual(len([c for c in enc if not c["capacity"]]), 30)
        self.assertGreaterEqual(len([c for c in dec if not c["capacity"]]), 30)
        ids = [c["id"] for c in enc + dec]
        self.assertEqual(sorted(ids), sorted(c["id"] for c in cases.all_cases()))

    def test_encoder_set_covers_issue_16(self):
        got = self.settings("encoders")
        archs = {c["arch"] for c, _ in got}
        self.assertTrue({"bge-m3", "klue-roberta-base", "multilingual-minilm", "mt5-base", "t5-base"} <= archs)
        self.assertTrue(any(s["mini_batch_size"] and s["task"] == "bi-encoder" for _, s in got),
                        "CachedMNRL (GradCache) mini-batches")
        evals = [s for _, s in got if s["mode"] == "eval"]
        self.assertTrue(evals and all(s["eval_batch_size"] > s["batch_size"] for s in evals))
        self.assertEqual({s["amp"] for c, s in got if c["arch"] == "bge-m3"}, {"off", "fp16", "bf16"})
        self.assertEqual({s["attn"] for _, s in got}, {"sdpa", "eager"})
        self.assertTrue(any(c["capacity"] and c["capacity"]["frac"] > 1 for c, _ in got))

    def test_decoder_set_covers_issue_17(self):
        got = self.settings("decoders")
        archs = {c["arch"] for c, _ in got}
        self.assertIn("qwen2.5-0.5b", archs)
        params = {c["arch"]: cases.ARCHS[c["arch"]]["official_params"] for c, _ in got if not c["value"]}
        self.assertTrue(all(0.4e9 <= n <= 3.3e9 for n in params.values()))

        def has(**kw):
            return any(all(s.get(k) == v or c.get(k) == v for k, v in kw.items()) for c, s in got)
        self.assertTrue(has(optimizer="adamw_bnb_8bit", lora_r=0))
        self.assertTrue(has(lora_r=8, lora_targets=cases.LLAMA_QV))
        self.assertTrue(has(lora_r=64, lora_targets=cases.LLAMA_ALL))
        self.assertTrue(has(modules_to_save="embed_tokens,lm_head"))
        self.assertTrue(has(quant="nf4", kbit_prepare=True) and has(quant="nf4", kbit_prepare=False))
        self.assertEqual({s["attn"] for _, s in got}, {"sdpa", "eager", "flash"})
        self.assertTrue({512, 4096} <= {s["seq_len"] for _, s in got})
        self.assertTrue(has(fsdp="full_shard", dtype="bf16", amp="off"), "pure bf16 FSDP")
        self.assertTrue(has(fsdp="full_shard", dtype="fp32", amp="bf16"), "fp32 master FSDP")
        self.assertTrue(has(torch_compile=True) and has(liger=True))
        gen = [s for _, s in got if s["mode"] == "generate"]
        self.assertTrue(any(s["num_beams"] > 1 for s in gen) and all(s["max_new_tokens"] > 0 for s in gen))
        self.assertTrue(any(c["capacity"] and c["capacity"]["frac"] < 0.9 for c, _ in got))
        self.assertTrue(any(c["capacity"] and c["capacity"]["frac"] > 1 for c, _ in got))
        for c, s in got:
            if s["attn"] == "flash":
                self.assertIn("flash_attn", c["requires"])
            if s["liger"]:
                self.assertIn("liger_kernel", c["requires"])

    def test_new_settings_travel_in_notes_as_roles(self):
        import measured
        for c in cases.all_cases():
            row = cases.tsv_row(c, "h100-80gb", "nvml_used", 1)
            roles = dict(r.split("=", 1) for r in measured.row_roles(row))
            s = c["settings"]
            if s["mode"] != "train":
                self.assertEqual(roles["mode"], s["mode"], c["id"])
            else:
                self.assertNotIn("mode", roles)
            for role in ("eval_batch_size", "mini_batch_size", "num_beams", "max_new_tokens"):
                if s[role]:
                    self.assertEqual(roles[role], str(s[role]), c["id"])
            if s["fsdp"]:
                self.assertEqual(roles["fsdp"], s["fsdp"])
            if s["modules_to_save"]:
                self.assertEqual(roles["modules_to_save"], s["modules_to_save"])
            self.assertEqual("torch_compile" in roles, s["torch_compile"])
            self.assertEqual("liger" in roles, s["liger"])
            if s["quant"] != "none" and not c["kbit_prepare"]:
                self.assertIn("kbit_prepare=false", row["notes"])


if __name__ == "__main__":
    unittest.main()
