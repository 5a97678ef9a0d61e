/*
 * memory/peft_table: the PEFT methods of rules/peft.yaml, compiled at build time by
 * gen/gen_peft.py into static postfix programs (peft_table.c in the build directory), and
 * evaluated here (peft.c). A method of the table is the peft_method value
 * SL_PEFT_TABLE + its index (sl_peft_parse, sl_peft_name).
 */
#ifndef SL_MEMORY_PEFT_TABLE_H
#define SL_MEMORY_PEFT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/memory.h"

enum sl_peft_opcode {
	SL_POP_NUM,   /* push num */
	SL_POP_VAR,   /* push variable var */
	SL_POP_ADD,
	SL_POP_SUB,
	SL_POP_MUL,
	SL_POP_DIV,
	SL_POP_MIN,
	SL_POP_MAX,
	SL_POP_FLOOR,
	SL_POP_CEIL,
	SL_POP_DEF,   /* a b -> a when a != 0, else b */
	SL_POP_LOKR,  /* in out r factor both -> LoKr's parameters (LyCORIS factorization) */
};

/* the variables a program reads; knob k is SL_PV_KNOB + k */
enum { SL_PV_IN, SL_PV_OUT, SL_PV_R, SL_PV_L, SL_PV_WB, SL_PV_KNOB };

#define SL_PEFT_KNOBS_MAX 8

struct sl_peft_op {
	uint8_t op;
	uint8_t var;
	double num;
};

struct sl_peft_expr {
	const struct sl_peft_op *ops; /* NULL: 0 */
	unsigned n;
};

struct sl_peft_def {
	const char *name;               /* the peft_method value */
	const char *const *spellings;   /* other spellings, NULL-terminated */
	const char *source;
	const char *rank_key;           /* the config key lora_r stands for; NULL: none */
	double rank_default;
	uint32_t targets;               /* SL_LORA_* default targets */
	unsigned nknobs;
	const char *const *knob_keys;
	const double *knob_values;
	struct sl_peft_expr params, params_kind, params_model;
	struct sl_peft_expr keeps_token, keeps_weight, buffers, buffers_kind;
	double state;                   /* bytes per trainable parameter beyond the optimizer's */
};

extern const struct sl_peft_def sl_peft_table[];
extern const unsigned sl_peft_table_n;

/* The table's method m (a peft_method value), or NULL for a built-in method. */
const struct sl_peft_def *sl_peft_def_of(enum sl_peft m);

/* Knob values for one evaluation: the defaults, with the named keys replaced (unknown keys: -1). */
struct sl_peft_knobs {
	double v[SL_PEFT_KNOBS_MAX];
};
void sl_peft_knobs_default(const struct sl_peft_def *d, struct sl_peft_knobs *k);
int sl_peft_knobs_set(const struct sl_peft_def *d, struct sl_peft_knobs *k, const char *key, double value);

/* What a table method keeps over a model, summed over its targets (0: the method's default ones). */
struct sl_peft_sizes {
	double params;       /* trainable parameters */
	double buffers;      /* frozen bytes the method adds */
	double keeps_token;  /* bytes per token and layer kept for backward */
	double keeps_weight; /* bytes per layer kept for backward, independent of the tokens */
};
void sl_peft_sizes(const struct sl_arch *a, const struct sl_peft_def *d, uint32_t r, uint32_t targets,
		   double wb, const struct sl_peft_knobs *k, struct sl_peft_sizes *out);

#endif
