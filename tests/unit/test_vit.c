/*
 * test_vit: Vision Transformers as timm and torchvision name and build them (src/models/vitname.c,
 * src/models/vit.c, the vit family in arch.c, the image size, classes and channels in the estimate).
 * Every count is compared with a figure the library publishes: torchvision's weights meta num_params
 * (torchvision/models/vision_transformer.py @07a929e8b851242b1c75c9016ee06a8e502961d8) and timm's
 * results-imagenet.csv param_count (@aa4b5850c1543fa488abf260f18390eda46cf85d), or with the published
 * count and the head's shape (Linear(h, classes)) computed by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/memory.h"

#include "catalog_fixture.h"

static const struct sl_model *resolve(struct env *e, const char *value)
{
	struct sl_diags d;
	sl_diags_init(&d, e->arena);
	return sl_model_resolve(e->arena, e->cat, value, NULL, &d);
}

static uint64_t params_of(struct env *e, const char *value)
{
	const struct sl_model *m = resolve(e, value);
	assert_non_null(m);
	assert_int_equal(m->arch.family, SL_FAMILY_VIT);
	assert_string_equal(m->resolved_by, "name");
	return sl_arch_params(&m->arch);
}

/* the head Linear(h, k) */
static uint64_t head(uint64_t h, uint64_t k)
{
	return h * k + k;
}

static void test_published_counts(void **state)
{
	struct env *e = *state;
	/* torchvision's meta num_params, exact */
	assert_int_equal(params_of(e, "vit_b_16"), 86567656);
	assert_int_equal(params_of(e, "vit_b_32"), 88224232);
	assert_int_equal(params_of(e, "vit_l_16"), 304326632);
	assert_int_equal(params_of(e, "vit_l_32"), 306535400);
	assert_int_equal(params_of(e, "vit_h_14"), 632045800); /* IMAGENET1K_SWAG_LINEAR_V1: 224 x 224 */
	/* timm's ImageNet-1k ViTs hold torchvision's tensors: ViT-B/16 at 224 and at 384 (SWAG_E2E_V1's 86859496) */
	assert_int_equal(params_of(e, "vit_base_patch16_224"), 86567656);
	assert_int_equal(params_of(e, "timm/vit_base_patch16_224.augreg2_in21k_ft_in1k"), 86567656);
	assert_int_equal(params_of(e, "hf-hub:timm/vit_base_patch16_384.augreg_in21k_ft_in1k"), 86859496);
	assert_int_equal(params_of(e, "deit_base_patch16_384.fb_in1k"), 86859496);
	assert_int_equal(params_of(e, "vit_large_patch32_384.orig_in21k_ft_in1k") / 10000, 30663); /* 306.63M */
	assert_int_equal((params_of(e, "timm/vit_large_patch16_224.augreg_in21k_ft_in1k") + 5000) / 10000, 30433);
	assert_int_equal((params_of(e, "deit_small_patch16_224.fb_in1k") + 5000) / 10000, 2205);   /* 22.05M */
	assert_int_equal((params_of(e, "vit_tiny_patch16_384.augreg_in21k_ft_in1k") + 5000) / 10000, 579);
}

static void test_tags_decide_the_head(void **state)
{
	struct env *e = *state;
	/* augreg_in21k: ImageNet-21k's 21843 classes; orig_in21k, dino, mae: no head */
	assert_int_equal(params_of(e, "timm/vit_base_patch16_224.augreg_in21k"),
			 86567656 - head(768, 1000) + head(768, 21843));
	assert_int_equal(params_of(e, "vit_base_patch16_224.orig_in21k"), 86567656 - head(768, 1000));
	assert_int_equal(params_of(e, "vit_base_patch16_224.mae"), 86567656 - head(768, 1000));
	/* a bare name takes its first tag's head: vit_large_patch16_224 is augreg_in21k's */
	assert_int_equal(params_of(e, "vit_large_patch16_224"), 304326632 - head(1024, 1000) + head(1024, 21843));
	assert_int_equal(params_of(e, "vit_huge_patch14_224"), 632045800 - head(1280, 1000));
	assert_int_equal(params_of(e, "vit_large_patch32_224"), 306535400 - head(1024, 1000));
	/* a tag sweeplint does not know: resolved, the head assumed, and said */
	const struct sl_model *m = resolve(e, "vit_base_patch16_224.some_new_tag");
	assert_non_null(m);
	assert_int_equal(m->arch.classes, 1000);
	assert_non_null(strstr(m->resolved_note, "not one sweeplint knows"));
	/* case does not matter, as in timm's registry lookups of Hub ids */
	assert_int_equal(params_of(e, "TIMM/ViT_Base_Patch16_224"), 86567656);
}

static void test_names_refused(void **state)
{
	struct env *e = *state;
	static const char *const no[] = {
		"vit_base_patch16_clip_224", /* another architecture's words: not in the table */
		"vit_small_patch14_dinov2.lvd142m",
		"vit_b_16.imagenet1k_v1",    /* torchvision names carry no tag */
		"timm/vit_b_16",             /* nor are they Hub ids */
		"hf-hub:vit_b_16",
		"google/vit_base_patch16_224", /* another org */
		"vit_base_patch16_224.",
		"vit_base_patch16_224.a.b",
		"hf-hub:",
		"timm/",
		"vit_base",
		"",
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		assert_null(sl_vit_resolve(e->arena, e->cat, no[i]));
	assert_null(sl_vit_resolve(e->arena, e->cat, NULL));
}

static void test_tokens(void **state)
{
	struct env *e = *state;
	assert_int_equal(sl_arch_vit_tokens(&resolve(e, "vit_b_16")->arch), 14 * 14 + 1);
	assert_int_equal(sl_arch_vit_tokens(&resolve(e, "vit_h_14")->arch), 16 * 16 + 1);
	assert_int_equal(sl_arch_vit_tokens(&resolve(e, "vit_base_patch32_224")->arch), 7 * 7 + 1);
	assert_int_equal(sl_arch_vit_tokens(&resolve(e, "vit_base_patch16_384")->arch), 24 * 24 + 1);
	assert_int_equal(sl_arch_vit_tokens(&resolve(e, "vit_b_16")->arch), resolve(e, "vit_b_16")->arch.max_pos);
	assert_int_equal(sl_arch_vit_tokens(&resolve(e, "bert-base-uncased")->arch), 0);
}

static uint64_t estimate(struct env *e, const char *model, struct sl_settings *s, struct sl_breakdown *b)
{
	const struct sl_model *m = resolve(e, model);
	assert_non_null(m);
	sl_estimate(&m->arch, s, sl_catalog_find_gpu(e->arena, e->cat, "a100-80gb"), &e->calib, b);
	return b->total;
}

static void test_estimate(void **state)
{
	struct env *e = *state;
	struct sl_settings s;
	sl_settings_default(&s);
	s.batch_size = 16;
	struct sl_breakdown b, b2;
	/* the length is the image's, not a setting: any seq_len gives the same step */
	s.seq_len = 512;
	uint64_t at512 = estimate(e, "vit_b_16", &s, &b);
	s.seq_len = 64;
	assert_int_equal(estimate(e, "vit_b_16", &s, &b2), at512);
	assert_int_equal(b.params, 86567656);
	assert_int_equal(b.weights, 86567656ull * 4); /* fp32, no mixed precision */
	/* the image size the program builds it with: torchvision's published counts at 512 and 518 (the SWAG
	 * E2E weights: vit_l_16 305174504, vit_h_14 633470440), and more tokens, more activations */
	s.image_size = 512;
	estimate(e, "vit_l_16", &s, &b2);
	assert_int_equal(b2.params, 305174504);
	s.image_size = 518;
	estimate(e, "vit_h_14", &s, &b2);
	assert_int_equal(b2.params, 633470440);
	s.image_size = 256;
	estimate(e, "vit_b_16", &s, &b2);
	assert_true(b2.activations > b.activations);
	/* 257 tokens against 197: the layers' saved activations grow with the tokens (at least 257/197 - 1%) */
	assert_true((double)b2.activations / (double)b.activations > 257.0 / 197 * 0.99);
	/* a 4-channel patch conv and a 5-class head, as a program replaces them: the count follows */
	s.in_chans = 4;
	s.num_classes = 5;
	estimate(e, "vit_b_16", &s, &b2);
	assert_int_equal(b2.params, 86567656 + (uint64_t)(257 - 197) * 768 + 16 * 16 * 768 - head(768, 1000) +
					    head(768, 5));
	/* mixed precision halves nothing in the fp32 weights but the activations shrink */
	struct sl_breakdown amp;
	s.amp = SL_AMP_BF16;
	estimate(e, "vit_b_16", &s, &amp);
	assert_true(amp.activations < b2.activations);
}

/* transformers' ViT config.json (model_type vit): the same tensors; a bare ViTModel has a pooler, no head */
static void test_config_json(void **state)
{
	struct env *e = *state;
	struct sl_diags d;
	sl_diags_init(&d, e->arena);
	const struct sl_model *m = sl_model_from_config(e->arena, "fixtures/configs/vit/config.json", &d);
	assert_non_null(m);
	assert_int_equal(sl_arch_params(&m->arch), 86567656);
	assert_int_equal(sl_arch_params_for_task(&m->arch, SL_TASK_SEQ_CLS), 86567656);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_published_counts), cmocka_unit_test(test_tags_decide_the_head),
		cmocka_unit_test(test_names_refused),    cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_estimate),         cmocka_unit_test(test_config_json),
	};
	return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
