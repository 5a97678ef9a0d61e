/*
 * vitname: a Vision Transformer named the way timm and torchvision name it (docs/models.md "Vision
 * Transformers"), resolved to its entry of the architecture table (rules/architectures.yaml, family vit).
 *
 *   timm:        vit_base_patch16_224, deit_small_patch16_224, with a pretrained tag after a dot
 *                (vit_base_patch16_224.augreg_in21k), as a Hub id (timm/vit_base_patch16_224.augreg_in21k)
 *                or with timm's prefix (hf-hub:timm/vit_base_patch16_224.augreg_in21k, hf_hub:...);
 *   torchvision: vit_b_16, vit_b_32, vit_l_16, vit_l_32, vit_h_14 (no tags: the weights are an argument).
 *
 * Only names the table lists resolve (timm raises on a name it does not register; a name with another
 * architecture's words, vit_base_patch16_clip_224 or vit_small_patch14_dinov2, is not in the table and
 * stays unknown). The tag decides the classifier: timm builds the model with the pretrained config's
 * num_classes whether or not the weights are loaded (timm/models/_builder.py _update_default_model_kwargs,
 * @aa4b5850c1543fa488abf260f18390eda46cf85d), and the configs of timm/models/vision_transformer.py's
 * default_cfgs give ImageNet-21k heads of 21843 classes (augreg_in21k), none (orig_in21k, dino, mae) or
 * ImageNet-1k's 1000 (the tags ending in in1k). A bare name takes its first tag's head (timm's default
 * pretrained tag is the first listed): the table entries hold ImageNet-1k's head, checked against the
 * published counts, and first_tags below names the bare names whose first tag has another.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "sweeplint/arena.h"
#include "sweeplint/models.h"

/* A pretrained tag's classifier outputs (timm/models/vision_transformer.py default_cfgs @aa4b5850); -1: the
 * tag is not one of these. */
static int tag_classes(const char *tag)
{
	static const struct {
		const char *tag;
		int classes;
	} tags[] = {
		{"augreg_in21k", 21843}, {"orig_in21k", 0}, {"dino", 0}, {"mae", 0}, {"untrained", 1000},
	};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		if (strcasecmp(tag, tags[i].tag) == 0)
			return tags[i].classes;
	size_t n = strlen(tag);
	if (n >= 4 && strcasecmp(tag + n - 4, "in1k") == 0) /* augreg_in21k_ft_in1k, augreg_in1k, sam_in1k, fb_in1k */
		return 1000;
	return -1;
}

/* Bare names whose first pretrained tag in default_cfgs (timm/models/vision_transformer.py @aa4b5850)
 * is not an ImageNet-1k one: timm.create_model("vit_large_patch16_224") builds a 21843-class head. */
static const char *first_tag(const char *name, size_t n)
{
	static const struct {
		const char *name, *tag;
	} first_tags[] = {
		{"vit_large_patch16_224", "augreg_in21k"},
		{"vit_large_patch32_224", "orig_in21k"},
		{"vit_huge_patch14_224", "orig_in21k"},
	};
	for (size_t i = 0; i < sizeof first_tags / sizeof first_tags[0]; i++)
		if (strlen(first_tags[i].name) == n && strncasecmp(first_tags[i].name, name, n) == 0)
			return first_tags[i].tag;
	return NULL;
}

static bool starts(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

const struct sl_model *sl_vit_resolve(struct sl_arena *a, const struct sl_catalog *c, const char *value)
{
	if (!value)
		return NULL;
	const char *s = value;
	bool hub = false;
	if (starts(s, "hf-hub:") || starts(s, "hf_hub:")) {
		s += 7;
		hub = true;
	}
	if (starts(s, "timm/")) {
		s += 5;
		hub = true;
	}
	if (hub && !*s)
		return NULL;
	if (strchr(s, '/') || strlen(s) > 96)
		return NULL; /* another org's repository: not timm's naming */
	const char *dot = strchr(s, '.');
	size_t n = dot ? (size_t)(dot - s) : strlen(s);
	const char *tag = dot ? dot + 1 : NULL;
	if (tag && (!*tag || strchr(tag, '.')))
		return NULL;
	const struct sl_model *e = NULL;
	for (size_t i = 0; i < c->narchs && !e; i++)
		if (c->archs[i].arch.family == SL_FAMILY_VIT && strlen(c->archs[i].name) == n &&
		    strncasecmp(c->archs[i].name, s, n) == 0)
			e = &c->archs[i];
	if (!e)
		return NULL;
	bool tv = e->hf_id && starts(e->hf_id, "torchvision");
	if (tv && (tag || hub))
		return NULL; /* torchvision names carry no tag and are no Hub id */
	struct sl_model *r = sl_arena_alloc(a, sizeof *r);
	*r = *e;
	r->resolved_by = "name";
	r->resolved_from = sl_arena_printf(a, "rules/architectures.yaml#%s", e->name);
	const char *dflt = tag ? NULL : first_tag(s, n);
	int k = tag ? tag_classes(tag) : dflt ? tag_classes(dflt) : -1;
	if (k >= 0)
		r->arch.classes = (uint32_t)k;
	const char *lib = tv ? "torchvision's" : "timm's";
	uint32_t t = sl_arch_vit_tokens(&r->arch);
	if (tag && k < 0)
		r->resolved_note = sl_arena_printf(a, "%s %s (%u tokens per %ux%u image); its tag '%s' is not one sweeplint "
						      "knows: the head assumed as the name's default (%u classes)",
						   lib, e->name, t, r->arch.vis_image, r->arch.vis_image, tag,
						   r->arch.classes);
	else
		r->resolved_note = sl_arena_printf(a, "%s %s (%u tokens per %ux%u image, a head of %u classes%s)", lib,
						   e->name, t, r->arch.vis_image, r->arch.vis_image, r->arch.classes,
						   tag    ? ", as its tag's pretrained config says"
						   : dflt ? sl_arena_printf(a, ", as its first pretrained tag %s says", dflt)
							  : "");
	return r;
}
