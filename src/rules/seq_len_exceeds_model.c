/*
 * seq-len-exceeds-model: a sequence length past what the model reads. Past
 * its learned position embeddings the run fails (error); past a
 * sentence-transformers max_seq_length the input is only truncated, so the
 * longer lengths of the sweep repeat the same run (warning, unless the
 * user set this rule's severity).
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"
#include "sweeplint/run.h"

int sl_check_seq_len_exceeds_model(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	size_t si, mi;
	const struct sl_eval_axis *sx = sl_memrule_axis(ev, SL_ROLE_SEQ_LEN, &si);
	const struct sl_eval_axis *mx = sl_memrule_axis(ev, SL_ROLE_MODEL, &mi);
	if (!sx || !mx)
		return 0;
	bool set = cx->run->severity_set[cx->rule - sl_rules];
	/* combinations holding one seq value and one model value */
	uint64_t per_pair = ev->ncombos / (sx->n * mx->n);
	struct sl_count pair = sl_count_mul(ev->others, (struct sl_count){.value = per_pair});
	const struct sl_node *done = NULL; /* computed range values share a node: one finding there */
	for (size_t j = 0; j < sx->n; j++) {
		const struct sl_eval_value *v = &sx->values[j];
		if (!v->ok || (v->node && v->node == done))
			continue;
		uint64_t len = v->rv->u;
		const struct sl_model *hard = NULL, *soft = NULL;
		uint32_t hard_lim = 0, soft_lim = 0;
		uint64_t nhard = 0, nsoft = 0;
		for (size_t k = 0; k < mx->n; k++) {
			const struct sl_model *m = mx->values[k].model;
			if (!m)
				continue;
			uint32_t lim = sl_arch_max_seq_len(&m->arch);
			if (lim && len > lim) {
				nhard++;
				if (!hard)
					hard = m, hard_lim = lim;
			} else if (m->st_max_seq_len && len > m->st_max_seq_len) {
				nsoft++;
				if (!soft)
					soft = m, soft_lim = m->st_max_seq_len;
			}
		}
		if (hard || soft)
			done = v->node;
		const char *name = sl_eval_value_name(cx->arena, sx, v);
		if (hard) {
			struct sl_count c = sl_count_mul(pair, (struct sl_count){.value = nhard});
			sl_memrule_emit(cx, sx, v, "%s exceeds the %u positions of %s%s (in %s combination%s): the run fails",
					name, hard_lim, hard->name,
					nhard > 1 ? sl_arena_printf(cx->arena, " and %llu more model%s",
								    (unsigned long long)(nhard - 1), nhard > 2 ? "s" : "")
						  : "",
					sl_count_str(cx->arena, c), !c.infinite && c.value == 1 ? "" : "s");
		} else if (soft) {
			struct sl_count c = sl_count_mul(pair, (struct sl_count){.value = nsoft});
			struct sl_diag *d = sl_memrule_emit(
				cx, sx, v,
				"%s exceeds the max_seq_length %u of %s (in %s combination%s): sentence-transformers truncates "
				"to %u, so longer lengths repeat the same run",
				name, soft_lim, soft->name, sl_count_str(cx->arena, c), !c.infinite && c.value == 1 ? "" : "s",
				soft_lim);
			if (!set && d->severity > SL_SEV_WARNING)
				d->severity = SL_SEV_WARNING;
		}
	}
	return 0;
}
