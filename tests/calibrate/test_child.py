"""The case subprocess's Python, run against stand-in torch/transformers/peft/pynvml modules.

No GPU and no torch here: these mocks accept any call, so the test proves the child's own
control flow (building, the training loop, AMP/GC/LoRA/QLoRA branches, the OOM path, what
it records) and not the numbers a GPU would give.
"""
import sys
import types
import unittest
from unittest import mock

import calib_test_util  # noqa: F401
import calibrate
import cases

MIB = 1 << 20


class FakeOOM(RuntimeError):
    pass


class Param:
    def __init__(self, n, trainable=True):
        self.n, self.requires_grad, self.dtype = n, trainable, "dt"

    def numel(self):
        return self.n


def fake_stack(forward_error=None):
    torch = mock.MagicMock(name="torch")
    torch.cuda.OutOfMemoryError = FakeOOM
    torch.cuda.memory_reserved.return_value = 300 * MIB
    torch.cuda.memory_allocated.return_value = 290 * MIB
    torch.cuda.max_memory_allocated.return_value = 5000 * MIB
    torch.cuda.max_memory_reserved.return_value = 6000 * MIB
    torch.cuda.mem_get_info.return_value = (70000 * MIB, 80000 * MIB)
    torch.device.return_value.index = 0
    model = mock.MagicMock(name="model")
    params = [Param(1000), Param(24, trainable=False)]
    model.parameters.side_effect = lambda: iter(params)
    model.config._attn_implementation = "sdpa"
    if forward_error is not None:
        model.side_effect = forward_error
    opt = torch.optim.AdamW.return_value
    opt.state = {"p": 1}
    tf = mock.MagicMock(name="transformers")
    tf.__version__ = "4.57.1"
    for auto in ("AutoModel", "AutoModelForSequenceClassification", "AutoModelForSeq2SeqLM",
                 "AutoModelForCausalLM"):
        getattr(tf, auto).from_config.return_value = model
        getattr(tf, auto).from_pretrained.return_value = model
    tf.AutoConfig.for_model.return_value = types.SimpleNamespace(vocab_size=1000)
    peft = mock.MagicMock(name="peft")
    peft.get_peft_model.side_effect = lambda m, cfg: m
    peft.prepare_model_for_kbit_training.side_effect = lambda m, use_gradient_checkpointing: m
    nvml = mock.MagicMock(name="pynvml")
    used = iter([4 * MIB, 500 * MIB] + [9000 * MIB] * 100000)
    nvml.nvmlDeviceGetMemoryInfo.side_effect = lambda h: types.SimpleNamespace(used=next(used))
    torch.distributed.is_initialized.return_value = False
    liger = mock.MagicMock(name="liger_kernel")
    modules = {"torch": torch, "torch.nn": torch.nn, "torch.nn.functional": torch.nn.functional,
               "torch.distributed": torch.distributed, "torch.distributed.fsdp": torch.distributed.fsdp,
               "torch.distributed.fsdp.wrap": torch.distributed.fsdp.wrap,
               "transformers": tf, "transformers.optimization": tf.optimization, "peft": peft,
               "pynvml": nvml, "liger_kernel": liger, "liger_kernel.transformers": liger.transformers}
    return modules, torch, tf, peft, model


def case(case_id):
    return [c for c in cases.all_cases() if c["id"] == case_id][0]


class ChildTest(unittest.TestCase):
    def run_case(self, case_id, steps=2, forward_error=None):
        modules, torch, tf, peft, model = fake_stack(forward_error)
        with mock.patch.dict(sys.modules, modules), mock.patch.dict("os.environ", {"CUDA_VISIBLE_DEVICES": "0"}):
            res = calibrate.run_case(case(case_id), steps, calibrate.Monitor())
        return res, torch, tf, peft, model

    def test_full_fine_tune_amp_fp16(self):
        res, torch, tf, peft, model = self.run_case("kluerob-cls-b32-s512-ampfp16-gc-sdpa")
        self.assertEqual(res["status"], "ok", res.get("error"))
        self.assertEqual(res["steps_done"], 2)
        self.assertEqual((res["params"], res["trainable"]), (1024, 1000))
        self.assertEqual(res["nvml_source"], "pynvml")
        self.assertEqual(res["nvml_baseline"], 4 * MIB)
        self.assertEqual(res["context_bytes"], 500 * MIB - 4 * MIB)
        self.assertEqual(res["nvml_peak_used"], 9000 * MIB)
        self.assertEqual((res["init_reserved"], res["peak_reserved"]), (300 * MIB, 6000 * MIB))
        self.assertEqual(res["attn_impl"], "sdpa")
        self.assertTrue(res["optimizer_state"])
        cfg = tf.AutoConfig.for_model.call_args
        self.assertEqual(cfg.args, ("roberta",))
        self.assertEqual(cfg.kwargs["num_labels"], 2)
        self.assertEqual(cfg.kwargs["vocab_size"], 32000)
        call = tf.AutoModelForSequenceClassification.from_config.call_args
        self.assertEqual(call.kwargs["attn_implementation"], "sdpa")
        model.gradient_checkpointing_enable.assert_called_once_with()
        self.assertEqual(torch.amp.GradScaler.call_args.kwargs["init_scale"], 1.0)
        self.assertEqual(torch.amp.GradScaler.return_value.step.call_count, 2)
        torch.autocast.assert_called_with("cuda", dtype=torch.float16)
        peft.get_peft_model.assert_not_called()
        batch = model.call_args.kwargs
        self.assertEqual(set(batch), {"input_ids", "attention_mask", "labels"})

    def test_bi_encoder_two_forward_passes_per_step(self):
        res, torch, tf, _, model = self.run_case("bgem3-b8-s256-ampfp16-gc-sdpa-k3", steps=3)
        self.assertEqual(res["status"], "ok", res.get("error"))
        self.assertEqual(model.call_count, 3 * 3)  # three texts per example, three steps
        self.assertEqual(set(model.call_args.kwargs), {"input_ids", "attention_mask"})
        tf.AutoModel.from_config.assert_called_once()
        self.assertEqual(tf.AutoConfig.for_model.call_args.kwargs["max_position_embeddings"], 8194)

    def test_seq2seq_and_causal_batches(self):
        res, torch, _, _, model = self.run_case("mt5b-b8-s256-t256-fp32-nogc-eager-adafactor")
        self.assertEqual(res["status"], "ok", res.get("error"))
        self.assertEqual(set(model.call_args.kwargs), {"input_ids", "attention_mask", "labels"})
        torch.autocast.assert_not_called()
        torch.amp.GradScaler.assert_not_called()
        model.gradient_checkpointing_enable.assert_not_called()
        res, _, tf, _, _ = self.run_case("llama1b-b4-s1024-bf16-nogc-sdpa-sgd")
        self.assertEqual(res["status"], "ok", res.get("error"))
        self.assertFalse(tf.AutoConfig.for_model.call_args.kwargs["use_cache"])

    def test_lora_with_checkpointing(self):
        res, _, _, peft, model = self.run_case("llama1b-b4-s1024-bf16-gc-sdpa-lora64-all")
        self.assertEqual(res["status"], "ok", res.get("error"))
        model.enable_input_require_grads.assert_called_once_with()
        cfg = peft.LoraConfig.call_args.kwargs
        self.assertEqual(cfg["r"], 64)
        self.assertEqual(cfg["target_modules"], cases.LLAMA_ALL.split(","))
        self.assertEqual(cfg["task_type"], "CAUSAL_LM")
        self.assertEqual(cfg["lora_dropout"], 0.0)

    def test_qlora_loads_through_bitsandbytes(self):
        res, torch, tf, peft, model = self.run_case("llama1b-b4-s1024-bf16-gc-sdpa-qlora16")
        self.assertEqual(res["status"], "ok", res.get("error"))
        q = tf.BitsAndBytesConfig.call_args.kwargs
        self.assertTrue(q["load_in_4bit"])
        self.assertEqual(q["bnb_4bit_quant_type"], "nf4")
        load = tf.AutoModelForCausalLM.from_pretrained.call_args
        self.assertIs(load.kwargs["quantization_config"], tf.BitsAndBytesConfig.return_value)
        self.assertEqual(load.kwargs["device_map"], {"": 0})
        self.assertIn("dtype", load.kwargs)
        peft.prepare_model_for_kbit_training.assert_called_once()
        self.assertTrue(peft.prepare_model_for_kbit_training.call_args.kwargs["use_gradient_checkpointing"])
        model.save_pretrained.assert_called_once()

    def test_out_of_memory_is_recorded(self):
        res, _, _, _, _ = self.run_case("bgem3-b64-s512-ampfp16-gc-sdpa",
                                        forward_error=FakeOOM("CUDA out of memory. Tried to allocate 2 GiB"))
        self.assertEqual(res["status"], "oom")
        self.assertIn("out of memory", res["error"])
        self.assertEqual(res["steps_done"], 0)
        self.assertEqual(res["peak_reserved"], 6000 * MIB)
        rows = calibrate.result_rows(case("bgem3-b64-s512-ampfp16-gc-sdpa"), "h100-80gb", res)
        self.assertEqual([(r["metric"], r["value_mib"]) for r in rows], [("oom", 1)])

    def test_other_errors_are_not_oom(self):
        res, _, _, _, _ = self.run_case("kluerob-cls-b32-s128-fp32-nogc-sdpa",
                                        forward_error=ValueError("does not support sdpa"))
        self.assertEqual(res["status"], "error")
        self.assertIn("ValueError", res["error"])

    def test_generation_runs_generate_without_training(self):
        res, torch, tf, peft, model = self.run_case("llama1b-gen-b8-p1024-new256-beams4-bf16-sdpa")
        self.assertEqual(res["status"], "ok", res.get("error"))
        self.assertTrue(tf.AutoConfig.for_model.call_args.kwargs["use_cache"])
        gen = model.generate.call_args.kwargs
        self.assertEqual((gen["num_beams"], gen["max_new_tokens"], gen["min_new_tokens"]), (4, 256, 256))
        self.assertFalse(gen["do_sample"])
        self.assertEqual(torch.randint.call_args.args[2], (8, 1024))
        torch.optim.AdamW.assert_not_called()
        model.eval.assert_called()
        model.assert_not_called()  # no training forward
        self.assertEqual(res["steps_done"], 2)

    def test_eval_peak_after_training_steps(self):
        c = case("kluerob-cls-b32-s512-ampfp16-nogc-sdpa-eval512")
        res, torch, tf, peft, model = self.run_case(c["id"])
        self.assertEqual(res["status"], "ok", res.get("error"))
        self.assertEqual(res["phase"], "eval")
        # two training steps at batch 32, then the evaluation forward at 512 under no_grad
        self.assertEqual(model.call_count, 3)
        shapes = [cl.args[2] for cl in torch.randint.call_args_list if len(cl.args) > 2]
        self.assertIn((32, 512), shapes)
        self.assertIn((512, 512), shapes)
        torch.no_grad.assert_called()
        self.assertGreaterEqual(torch.cuda.reset_peak_memory_stats.call_count, 2)
        self.assertEqual(torch.optim.AdamW.return_value.step.call_count, 0)  # AMP: the scaler steps
        self.assertEqual(torch.amp.GradScaler.return_value.step.call_count, 2)
        notes = calibrate.result_rows(c, "h100-80gb", res)[0]["notes"]
        self.assertIn("mode=eval", notes)
        self.assertIn("eval_batch_size=512", notes)
        self.assertIn("measured_phase=eval", notes)

    def test_cached_mnrl_runs_mini_batches(self):
        res, torch, tf, peft, model = self.run_case("bgem3-b64-s256-ampfp16-gc-sdpa-cached16", steps=1)
        self.assertEqual(res["status"], "ok", res.get("error"))
        # the mocks' tensors have size 1: per column one no-grad pass and one pass with grad
        self.assertEqual(model.call_count, 2 * 2)
        torch.no_grad.assert_called()
        self.assertEqual(torch.amp.GradScaler.return_value.scale.call_count, 1)

    def test_lora_with_trained_embeddings_and_no_kbit_prepare(self):
        res, _, _, peft, model = self.run_case("llama3b-b2-s2048-bf16-gc-sdpa-lora16-all-emb")
        self.assertEqual(res["status"], "ok", res.get("error"))
        self.assertEqual(peft.LoraConfig.call_args.kwargs["modules_to_save"], ["embed_tokens", "lm_head"])
        res, _, _, peft, model = self.run_case("llama3b-b4-s2048-bf16-gc-sdpa-qlora16-noprep")
        self.assertEqual(res["status"], "ok", res.get("error"))
        peft.prepare_model_for_kbit_training.assert_not_called()
        model.gradient_checkpointing_enable.assert_called_once_with()
        self.assertIsNone(peft.LoraConfig.call_args.kwargs["modules_to_save"])

    def test_fsdp_world_size_one(self):
        res, torch, _, _, model = self.run_case("llama1b-b4-s2048-ampbf16-gc-sdpa-fsdp")
        self.assertEqual(res["status"], "ok", res.get("error"))
        dist = torch.distributed
        dist.init_process_group.assert_called_once_with("nccl", rank=0, world_size=1)
        fsdp = dist.fsdp.FullyShardedDataParallel.call_args.kwargs
        self.assertIs(fsdp["sharding_strategy"], dist.fsdp.ShardingStrategy.FULL_SHARD)
        self.assertIs(fsdp["mixed_precision"], dist.fsdp.MixedPrecision.return_value)
        self.assertEqual(dist.fsdp.MixedPrecision.call_args.kwargs["param_dtype"], torch.bfloat16)
        torch.autocast.assert_called_with("cuda", dtype=torch.bfloat16)
        res, torch, _, _, _ = self.run_case("llama1b-b4-s2048-bf16-gc-sdpa-fsdp")
        self.assertEqual(res["status"], "ok", res.get("error"))
        self.assertIsNone(torch.distributed.fsdp.FullyShardedDataParallel.call_args.kwargs["mixed_precision"])

    def test_compile_and_liger(self):
        res, torch, _, _, model = self.run_case("llama1b-b4-s2048-bf16-gc-sdpa-compile")
        self.assertEqual(res["status"], "ok", res.get("error"))
        torch.compile.assert_called_once_with(model)
        modules, torch, tf, peft, model = fake_stack()
        with mock.patch.dict(sys.modules, modules), mock.patch.dict("os.environ", {"CUDA_VISIBLE_DEVICES": "0"}):
            res = calibrate.run_case(case("llama1b-b4-s2048-bf16-gc-sdpa-liger"), 1, calibrate.Monitor())
        self.assertEqual(res["status"], "ok", res.get("error"))
        modules["liger_kernel.transformers"]._apply_liger_kernel_to_instance.assert_called_once_with(model=model)

    def test_rope_settings_fall_back_to_rope_parameters(self):
        tf = mock.MagicMock()
        seen = []

        def for_model(mt, **kw):
            seen.append(kw)
            if "rope_scaling" in kw:
                raise TypeError("unexpected keyword rope_scaling")
            return "cfg"
        tf.AutoConfig.for_model.side_effect = for_model
        self.assertEqual(calibrate._make_config(tf, cases.hf_config("llama-3.2-1b")), "cfg")
        self.assertEqual(seen[1]["rope_parameters"]["rope_theta"], 500000.0)
        self.assertEqual(seen[1]["rope_parameters"]["rope_type"], "llama3")


if __name__ == "__main__":
    unittest.main()
