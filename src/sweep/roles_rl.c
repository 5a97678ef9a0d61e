/*
 * roles_rl: the values of the preference and RL fine-tuning roles (issue #31; docs/cli.md "Roles of
 * preference and RL fine-tuning") and how they fold into a run's settings: the algorithm (a row of
 * rules/algorithms.yaml by name, spelling or trainer class), the KL coefficient, the generation
 * counts and lengths, vLLM's mode and share, and how the reference and reward models are held.
 */
#include "roles_rl.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* a number from a typed YAML value or its text; false when it is none */
static bool number(const char *t, const struct sl_value *tv, double *out)
{
	if (tv && tv->type == SL_V_FLOAT) {
		*out = tv->f;
		return isfinite(tv->f);
	}
	if (tv && tv->type == SL_V_INT && !tv->big) {
		*out = (double)tv->i;
		return true;
	}
	if (tv && tv->type != SL_V_STR)
		return false;
	char *end = NULL;
	*out = strtod(t, &end);
	return end && end != t && !*end && isfinite(*out);
}

/* "true"/"false" and their spellings; -1 when neither */
static int boolean(const char *t, const struct sl_value *tv)
{
	if (tv && tv->type == SL_V_BOOL)
		return tv->b;
	if (tv && tv->type == SL_V_NULL)
		return 0;
	static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0", "none", ""};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (strcasecmp(t, yes[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (strcasecmp(t, no[i]) == 0)
			return 0;
	return -1;
}

static bool ends_with_nocase(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/*
 * An algorithm: a row's name or spelling; a trainer class of the program that subclasses one
 * (LLaMA-Factory's CustomDPOTrainer, a project's MyGRPOTrainer: the longest class name of the table
 * that ends it; a plain "...Trainer" is the HF Trainer's own loss); a number (a project's own stage
 * counter, not an algorithm) is sft.
 */
static int algorithm(const char *t, const struct sl_value *tv)
{
	int k = sl_algo_parse(t);
	if (k >= 0)
		return k;
	if ((tv && tv->type == SL_V_INT) || (*t && strspn(t, "0123456789") == strlen(t)))
		return 0;
	if (!ends_with_nocase(t, "Trainer"))
		return -1;
	size_t best = 0;
	for (int i = 0; i < (int)sl_algo_count(); i++) {
		/* the class spellings end in Trainer; the row's name never does */
		for (const char *const *sp = sl_algo_spellings((uint32_t)i); sp && *sp; sp++)
			if (ends_with_nocase(*sp, "Trainer") && strlen(*sp) > best && ends_with_nocase(t, *sp))
				best = strlen(*sp), k = i;
	}
	return k;
}

/* TRL DPOConfig loss types and LLaMA-Factory pref_loss values that run with a reference model */
static const char *const ref_losses[] = {
	"sigmoid", "hinge", "ipo", "kto_pair", "bco_pair", "sppo_hard", "nca_pair", "robust", "exo_pair",
	"aot", "aot_pair", "aot_unpaired", "apo_zero", "apo_down", "discopop", "sigmoid_norm",
};

int sl_role_rl_value(enum sl_role r, const char *t, const struct sl_value *tv, struct sl_role_value *out)
{
	double f;
	int b;
	switch (r) {
	case SL_ROLE_ALGORITHM: {
		int k = algorithm(t, tv);
		if (k < 0)
			return -1;
		out->u = (uint64_t)k;
		return 1;
	}
	case SL_ROLE_BETA:
		if (!number(t, tv, &f) || f < 0)
			return -1;
		out->u = f == 0 ? SL_BETA_ZERO : SL_BETA_POSITIVE;
		return 1;
	case SL_ROLE_VLLM_SLEEP:
		if ((b = boolean(t, tv)) < 0)
			return -1;
		out->u = (uint64_t)b;
		return 1;
	case SL_ROLE_VLLM_MODE:
		if (strcasecmp(t, "colocate") == 0 || strcasecmp(t, "colocated") == 0)
			out->u = SL_VLLM_COLOCATE;
		else if (strcasecmp(t, "server") == 0)
			out->u = SL_VLLM_SERVER;
		else
			return -1;
		return 1;
	case SL_ROLE_VLLM_GPU_MEMORY_UTILIZATION:
		/* a fraction in (0, 1]: vLLM refuses anything else */
		if (!number(t, tv, &f) || !(f > 0 && f <= 1))
			return -1;
		out->u = (uint64_t)llround(f * 10000);
		return 1;
	case SL_ROLE_REF_MODEL:
		/* no value (LLaMA-Factory's ref_model: null): the default reference */
		if ((tv && tv->type == SL_V_NULL) || !*t || strcasecmp(t, "null") == 0 || strcasecmp(t, "none") == 0 ||
		    strcasecmp(t, "default") == 0) {
			out->u = SL_REFM_DEFAULT;
			return 1;
		}
		if (tv && tv->type != SL_V_STR)
			return -1;
		if (strcasecmp(t, "precomputed") == 0) {
			out->u = SL_REFM_PRECOMPUTED;
			return 1;
		}
		/* LLaMA-Factory pref_loss orpo / simpo: stage dpo without a reference model (use_ref_model) */
		if (strcasecmp(t, "orpo") == 0 || strcasecmp(t, "simpo") == 0 || strcasecmp(t, "reference_free") == 0) {
			out->u = SL_REFM_NONE;
			return 1;
		}
		for (size_t i = 0; i < sizeof ref_losses / sizeof ref_losses[0]; i++)
			if (strcasecmp(t, ref_losses[i]) == 0) {
				out->u = SL_REFM_DEFAULT;
				return 1;
			}
		out->u = SL_REFM_MODEL; /* a model named for the reference */
		return 1;
	case SL_ROLE_REWARD_MODEL:
		if ((tv && tv->type == SL_V_NULL) || !*t || strcasecmp(t, "null") == 0 || strcasecmp(t, "none") == 0)
			out->u = SL_RM_DEFAULT;
		else if (strcasecmp(t, "lora") == 0 || strcasecmp(t, "oft") == 0 || strcasecmp(t, "adapter") == 0)
			out->u = SL_RM_ADAPTER; /* LLaMA-Factory reward_model_type: an adapter on the policy's base */
		else if (strcasecmp(t, "full") == 0 || strcasecmp(t, "model") == 0)
			out->u = SL_RM_MODEL;
		else if (strcasecmp(t, "api") == 0)
			out->u = SL_RM_API;
		else
			return -1;
		return 1;
	default:
		return 0;
	}
}

bool sl_settings_apply_rl(struct sl_settings *s, const struct sl_role_value *v)
{
	uint64_t u = v->u;
	switch (v->role) {
	case SL_ROLE_ALGORITHM:
		s->algorithm = (uint32_t)u;
		return true;
	case SL_ROLE_BETA:
		s->beta = (uint8_t)u;
		return true;
	case SL_ROLE_NUM_GENERATIONS:
		s->num_generations = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
		return true;
	case SL_ROLE_PROMPT_LEN:
		s->prompt_len = u;
		return true;
	case SL_ROLE_COMPLETION_LEN:
		s->completion_len = u;
		return true;
	case SL_ROLE_VLLM_MODE:
		s->vllm_mode = (uint8_t)u;
		return true;
	case SL_ROLE_VLLM_GPU_MEMORY_UTILIZATION:
		s->vllm_util_bp = (uint32_t)u;
		return true;
	case SL_ROLE_VLLM_SLEEP:
		s->vllm_sleep = u != 0;
		return true;
	case SL_ROLE_REF_MODEL:
		/* precompute_ref_log_probs: false clears only what true would have set */
		if (!v->negates || s->ref_model == (uint8_t)v->negated)
			s->ref_model = (uint8_t)u;
		return true;
	case SL_ROLE_REWARD_MODEL:
		s->reward_model = (uint8_t)u;
		return true;
	case SL_ROLE_GENERATION_BATCH_SIZE:
		s->generation_batch = u;
		return true;
	case SL_ROLE_STEPS_PER_GENERATION:
		s->steps_per_generation = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
		return true;
	default:
		return false;
	}
}
