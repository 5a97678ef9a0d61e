/*
 * modules: a custom nn.Module as a layer list (struct sl_modules, memory.h) — the format the program
 * interpreter emits for a model built from hyperparameters (role `modules`) or for a trainable head
 * (role `head_params`) — parsed and counted: parameters exactly as torch.nn's constructors make them
 * (torch/nn/modules/linear.py, sparse.py, conv.py, normalization.py, batchnorm.py, activation.py
 * MultiheadAttention, transformer.py, rnn.py), and per position an upper bound of the elements a
 * training step keeps for backward (docs/memory-model.md "Custom modules").
 *
 *   spec  := ["<="] items            "<=": every number is an upper bound (counts become bounds)
 *   items := item (";" item)*
 *   item  := [N "*"] layer | N "*" "[" items "]"
 *   layer := Name ["(" [arg ("," arg)*] ")"]     arg := size | NxM | True | False | key=value
 *   size  := number | "{" expr "}"
 *
 * A size in braces is computed from the sweep's values (moddims.c): it is evaluated for one combination
 * (sl_modules_parse_env with env->value), or bounded over all of them (env->range: every count becomes
 * an upper bound, as with "<="). Width-less layers (ReLU, GELU, Dropout, ...) act on the previous layer's
 * output width. Besides torch.nn's classes, what a hand-written module holds and keeps (the program's
 * interpreter writes them, pymodules.py): Parameter(N) (an nn.Parameter of N elements, keeps nothing),
 * Kept(N) (N elements per position its forward keeps for backward, no parameters), EagerAttention(H)
 * (a softmax over s x s scores of H heads: its output, dropout mask and dropped copy, 3 per head) and
 * SDPA(H) (F.scaled_dot_product_attention: a logsumexp per head and position). Nothing is allocated
 * but the returned strings; counts saturate at UINT64_MAX.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sweeplint/arena.h"
#include "sweeplint/memory.h"

#define MAX_DEPTH 8       /* nested N*[...] groups */
#define MAX_ARGS 12
#define MAX_LAYERS 100000 /* layers after expanding repeats: past this a spec is refused */

struct arg {
	const char *key;  /* NULL: positional */
	size_t klen;
	uint64_t v, v2;   /* a number, or NxM (v x v2); a bounded size: its largest value */
	uint64_t lo;      /* a bounded size's least value (else v) */
	int truth;        /* True/False: 1/0; -1 for a number */
};

struct parser {
	struct sl_arena *a;
	const char *s, *p;
	const char *why;
	uint32_t width;   /* the last output width */
	struct sl_modules *m;
	uint64_t expanded;
	const struct sl_modules_env *env; /* the sweep's values for sizes in braces (NULL: none) */
	bool ranged;      /* a size was bounded over several values */
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static void skip_ws(struct parser *P)
{
	while (*P->p == ' ' || *P->p == '\t' || *P->p == '\n' || *P->p == '\r')
		P->p++;
}

static bool fail(struct parser *P, const char *what)
{
	if (!P->why)
		P->why = sl_arena_printf(P->a, "%s at %zu", what, (size_t)(P->p - P->s));
	return false;
}

static bool number(struct parser *P, uint64_t *out)
{
	if (!isdigit((unsigned char)*P->p))
		return fail(P, "expected a number");
	uint64_t v = 0;
	while (isdigit((unsigned char)*P->p)) {
		unsigned d = (unsigned)(*P->p++ - '0');
		if (v > (UINT64_MAX - d) / 10)
			return fail(P, "number too large");
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* A size: a number, or {expr} of the sweep's values (moddims.c); *lo its least value when bounded. */
static bool size(struct parser *P, uint64_t *out, uint64_t *lo)
{
	if (*P->p != '{') {
		if (!number(P, out))
			return false;
		if (lo)
			*lo = *out;
		return true;
	}
	double l = 0, h = 0;
	const char *why = NULL;
	if (!sl_moddim_eval(P->a, &P->p, P->env, &l, &h, &why))
		return fail(P, why ? why : "a size in braces that cannot be read");
	if (l < 0 || h < 0)
		return fail(P, "a size below zero");
	P->ranged |= l != h;
	*out = (uint64_t)h;
	if (lo)
		*lo = (uint64_t)l;
	return true;
}

/* One argument: a size, NxM, a fraction (read as given, unused), True/False, or key=value. */
static bool parse_arg(struct parser *P, struct arg *g)
{
	memset(g, 0, sizeof *g);
	g->truth = -1;
	skip_ws(P);
	const char *w = P->p;
	while (isalnum((unsigned char)*P->p) || *P->p == '_' || *P->p == '.')
		P->p++;
	size_t n = (size_t)(P->p - w);
	skip_ws(P);
	if (n && *P->p == '=' && (isalpha((unsigned char)*w) || *w == '_')) {
		g->key = w, g->klen = n;
		P->p++;
		skip_ws(P);
		w = P->p;
		while (isalnum((unsigned char)*P->p) || *P->p == '_' || *P->p == '.')
			P->p++;
		n = (size_t)(P->p - w);
	}
	if (!n && *P->p == '{') {
		/* a size computed from the sweep's values */
		if (!size(P, &g->v, &g->lo))
			return false;
		return true;
	}
	const char *after = P->p;
	if (n == 4 && strncmp(w, "True", 4) == 0) {
		g->truth = 1;
		return true;
	}
	if (n == 5 && strncmp(w, "False", 5) == 0) {
		g->truth = 0;
		return true;
	}
	const char *end = w + n;
	P->p = w;
	if (!number(P, &g->v))
		return false;
	if (*P->p == '.') {
		/* a fraction (dropout=0.1): given, never a size */
		P->p++;
		while (isdigit((unsigned char)*P->p))
			P->p++;
		g->v = 1;
	} else if (*P->p == 'x' || *P->p == 'X') {
		P->p++;
		if (!number(P, &g->v2))
			return false;
	}
	if (P->p != end)
		return fail(P, "expected a number, NxM, True, False or key=value");
	g->lo = g->v;
	P->p = after;
	return true;
}

/* The value of positional argument pos or of keyword key; dflt when absent. */
static uint64_t get(const struct arg *g, size_t ng, size_t pos, const char *key, uint64_t dflt, bool *given)
{
	size_t seen = 0;
	for (size_t i = 0; i < ng; i++) {
		if (g[i].key) {
			if (strlen(key) == g[i].klen && strncmp(g[i].key, key, g[i].klen) == 0) {
				if (given)
					*given = true;
				return g[i].truth >= 0 ? (uint64_t)g[i].truth : g[i].v;
			}
			continue;
		}
		if (seen++ == pos) {
			if (given)
				*given = true;
			return g[i].truth >= 0 ? (uint64_t)g[i].truth : g[i].v;
		}
	}
	if (given)
		*given = false;
	return dflt;
}

/* A bounded size's least value (groups divide: their least value gives the most parameters). */
static uint64_t get_lo(const struct arg *g, size_t ng, size_t pos, const char *key, uint64_t dflt)
{
	size_t seen = 0;
	for (size_t i = 0; i < ng; i++) {
		bool hit = g[i].key ? strlen(key) == g[i].klen && strncmp(g[i].key, key, g[i].klen) == 0 : seen++ == pos;
		if (hit)
			return g[i].truth >= 0 ? (uint64_t)g[i].truth : g[i].lo;
	}
	return dflt;
}

/* The second number of an NxM argument (a kernel's width), or its first when square. */
static uint64_t get2(const struct arg *g, size_t ng, size_t pos, const char *key, uint64_t dflt)
{
	size_t seen = 0;
	for (size_t i = 0; i < ng; i++) {
		bool hit = g[i].key ? strlen(key) == g[i].klen && strncmp(g[i].key, key, g[i].klen) == 0 : seen++ == pos;
		if (hit)
			return g[i].v2 ? g[i].v2 : g[i].v;
	}
	return dflt;
}

/* What one layer adds (params, matmul weights, kept elements and working set per position, heads). */
struct layer {
	uint64_t params, matmul;
	double kept, transient, attn_heads, sdpa_heads;
	uint32_t out;
};

static bool name_is(const char *w, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(w, name, n) == 0;
}

/* A recurrent layer (torch/nn/modules/rnn.py RNNBase): gates G (4 LSTM, 3 GRU, 1 RNN), two biases each. */
static void recurrent(struct layer *L, uint64_t in, uint64_t h, uint64_t layers, bool bias, bool bidir, uint64_t G,
		      double state)
{
	uint64_t dirs = bidir ? 2 : 1;
	for (uint64_t l = 0; l < layers; l++) {
		uint64_t il = l == 0 ? in : h * dirs;
		uint64_t w = sat_mul(sat_mul(G, h), sat_add(il, h));
		L->params = sat_add(L->params, sat_mul(dirs, sat_add(w, bias ? sat_mul(2 * G, h) : 0)));
		L->matmul = sat_add(L->matmul, sat_mul(dirs, w));
		/* cuDNN's reserve space per position: the layer input (for the weight gradient), the gates and
		 * the cell state and output of each step */
		L->kept += (double)dirs * ((double)il + state * (double)h);
	}
	L->transient = (double)dirs * (double)h * (double)(G + 2);
	L->out = (uint32_t)(h * dirs > UINT32_MAX ? UINT32_MAX : h * dirs);
}

/* An attention block of width d with h heads: q, k, v, out projections (torch MultiheadAttention). */
static void mha(struct layer *L, uint64_t d, uint64_t kd, uint64_t vd, bool bias)
{
	uint64_t w = sat_add(sat_add(sat_mul(d, d), sat_mul(d, kd)), sat_add(sat_mul(d, vd), sat_mul(d, d)));
	L->params = sat_add(L->params, sat_add(w, bias ? 4 * d : 0));
	L->matmul = sat_add(L->matmul, w);
}

static bool layer(struct parser *P, const char *w, size_t n, const struct arg *g, size_t ng, struct layer *L)
{
	memset(L, 0, sizeof *L);
	uint32_t prev = P->width;
	bool ranged = false; /* a size bounded over several values: its divisibility is not checked */
	for (size_t i = 0; i < ng; i++)
		ranged |= g[i].truth < 0 && g[i].lo != g[i].v;
	bool given = false;
	L->out = prev;
	if (name_is(w, n, "Linear") || name_is(w, n, "LazyLinear")) {
		uint64_t in = get(g, ng, 0, "in_features", 0, NULL), out = get(g, ng, 1, "out_features", 0, NULL);
		if (name_is(w, n, "LazyLinear")) {
			out = get(g, ng, 0, "out_features", 0, NULL);
			in = prev;
		}
		if (!in || !out)
			return fail(P, "Linear needs in_features and out_features");
		bool bias = get(g, ng, 2, "bias", 1, NULL) != 0;
		L->params = sat_add(sat_mul(in, out), bias ? out : 0);
		L->matmul = sat_mul(in, out);
		L->kept = (double)in;
		L->transient = (double)in + (double)out;
		L->out = (uint32_t)(out > UINT32_MAX ? UINT32_MAX : out);
	} else if (name_is(w, n, "Embedding")) {
		uint64_t num = get(g, ng, 0, "num_embeddings", 0, NULL), dim = get(g, ng, 1, "embedding_dim", 0, NULL);
		if (!num || !dim)
			return fail(P, "Embedding needs num_embeddings and embedding_dim");
		L->params = sat_mul(num, dim);
		L->kept = 2; /* the int64 indices, in 4-byte elements */
		L->transient = (double)dim;
		L->out = (uint32_t)(dim > UINT32_MAX ? UINT32_MAX : dim);
	} else if (name_is(w, n, "Conv1d") || name_is(w, n, "Conv2d") || name_is(w, n, "Conv3d")) {
		uint64_t in = get(g, ng, 0, "in_channels", 0, NULL), out = get(g, ng, 1, "out_channels", 0, NULL);
		uint64_t k = get(g, ng, 2, "kernel_size", 0, NULL);
		if (!in || !out || !k)
			return fail(P, "a convolution needs in_channels, out_channels and kernel_size");
		uint64_t groups = get_lo(g, ng, 6, "groups", 1);
		if (!groups || (!ranged && (in % groups || out % groups)))
			return fail(P, "a convolution's channels must divide into its groups");
		uint64_t kk = k;
		if (name_is(w, n, "Conv2d"))
			kk = sat_mul(k, get2(g, ng, 2, "kernel_size", k));
		else if (name_is(w, n, "Conv3d"))
			kk = sat_mul(sat_mul(k, k), k);
		bool bias = get(g, ng, 7, "bias", 1, NULL) != 0;
		uint64_t wt = sat_mul(sat_mul(in / groups, out), kk);
		L->params = sat_add(wt, bias ? out : 0);
		L->matmul = wt;
		L->kept = (double)in;
		L->transient = (double)in + (double)out;
		L->out = (uint32_t)(out > UINT32_MAX ? UINT32_MAX : out);
	} else if (name_is(w, n, "LayerNorm") || name_is(w, n, "RMSNorm") || name_is(w, n, "BatchNorm1d") ||
		   name_is(w, n, "BatchNorm2d") || name_is(w, n, "GroupNorm")) {
		bool gn = name_is(w, n, "GroupNorm");
		uint64_t d = gn ? get(g, ng, 1, "num_channels", 0, NULL)
				: get(g, ng, 0, name_is(w, n, "LayerNorm") || name_is(w, n, "RMSNorm") ? "normalized_shape"
													   : "num_features",
				      0, NULL);
		if (!d)
			return fail(P, "a norm needs its width");
		bool affine = get(g, ng, 99, name_is(w, n, "LayerNorm") || name_is(w, n, "RMSNorm") ? "elementwise_affine"
													: "affine",
				  1, NULL) != 0;
		bool bias = !name_is(w, n, "RMSNorm") && get(g, ng, 99, "bias", 1, NULL) != 0;
		L->params = affine ? (bias ? 2 * d : d) : 0;
		L->kept = (double)d + 2; /* the input and the mean / rstd */
		L->transient = 2.0 * (double)d;
		L->out = (uint32_t)(d > UINT32_MAX ? UINT32_MAX : d);
	} else if (name_is(w, n, "MultiheadAttention")) {
		uint64_t d = get(g, ng, 0, "embed_dim", 0, NULL), h = get(g, ng, 1, "num_heads", 0, NULL);
		if (!d || !h)
			return fail(P, "MultiheadAttention needs embed_dim and num_heads");
		if (d % h && !ranged)
			return fail(P, "MultiheadAttention: embed_dim must divide into num_heads");
		uint64_t kd = get(g, ng, 6, "kdim", d, NULL), vd = get(g, ng, 7, "vdim", d, NULL);
		bool bias = get(g, ng, 3, "bias", 1, NULL) != 0;
		mha(L, d, kd, vd, bias);
		if (get(g, ng, 4, "add_bias_kv", 0, NULL))
			L->params = sat_add(L->params, 2 * d);
		/* called with need_weights=True (the default): the math path keeps the s x s probabilities of
		 * every head, and returns their average (one more s x s) */
		L->kept = (double)d + 3.0 * (double)d + 2.0 * (double)d;
		L->attn_heads = (double)h + 1;
		L->transient = 4.0 * (double)d;
		L->out = (uint32_t)(d > UINT32_MAX ? UINT32_MAX : d);
	} else if (name_is(w, n, "TransformerEncoderLayer") || name_is(w, n, "TransformerDecoderLayer")) {
		bool dec = name_is(w, n, "TransformerDecoderLayer");
		uint64_t d = get(g, ng, 0, "d_model", 0, NULL), h = get(g, ng, 1, "nhead", 0, NULL);
		uint64_t ff = get(g, ng, 2, "dim_feedforward", 2048, NULL);
		if (!d || !h || !ff)
			return fail(P, "a transformer layer needs d_model and nhead");
		if (d % h && !ranged)
			return fail(P, "a transformer layer's d_model must divide into nhead");
		bool bias = get(g, ng, 99, "bias", 1, NULL) != 0;
		mha(L, d, d, d, bias);
		if (dec)
			mha(L, d, d, d, bias);
		uint64_t lin = sat_add(sat_mul(d, ff), sat_mul(ff, d));
		L->params = sat_add(sat_add(L->params, lin), bias ? ff + d : 0);
		L->matmul = sat_add(L->matmul, lin);
		L->params = sat_add(L->params, (dec ? 3 : 2) * (bias ? 2 * d : d)); /* norm1, norm2 (, norm3) */
		/* per position (self_attn with need_weights=False: SDPA): norm input, in_proj input, q k v, the
		 * attention output, out_proj input, dropout mask; FFN: norm input, linear1 input, activation
		 * output, dropout mask, linear2 input, dropout mask; a decoder layer adds the cross-attention
		 * block (its q, output, out_proj input, mask, norm; k and v over the memory) */
		L->kept = 10.0 * (double)d + 3.0 * (double)ff + 4 + (dec ? 7.0 * (double)d + 2 : 0);
		L->sdpa_heads = (double)h * (dec ? 2 : 1);
		L->transient = 2.0 * (double)ff + (double)d;
		L->out = (uint32_t)(d > UINT32_MAX ? UINT32_MAX : d);
	} else if (name_is(w, n, "LSTM") || name_is(w, n, "GRU") || name_is(w, n, "RNN")) {
		uint64_t in = get(g, ng, 0, "input_size", 0, NULL), h = get(g, ng, 1, "hidden_size", 0, NULL);
		uint64_t layers = get(g, ng, 2, "num_layers", 1, NULL);
		if (!in || !h || !layers)
			return fail(P, "a recurrent layer needs input_size and hidden_size");
		bool bias = get(g, ng, 3, "bias", 1, NULL) != 0, bidir = get(g, ng, 6, "bidirectional", 0, NULL) != 0;
		if (name_is(w, n, "LSTM"))
			recurrent(L, in, h, layers, bias, bidir, 4, 6);
		else if (name_is(w, n, "GRU"))
			recurrent(L, in, h, layers, bias, bidir, 3, 5);
		else
			recurrent(L, in, h, layers, bias, bidir, 1, 2);
	} else if (name_is(w, n, "Parameter")) {
		/* an nn.Parameter the module holds itself (a position table, a class token, a norm's weight) */
		L->params = get(g, ng, 0, "numel", 0, NULL);
	} else if (name_is(w, n, "Kept")) {
		/* elements per position a hand-written forward keeps for backward (its own elementwise ops) */
		L->kept = (double)get(g, ng, 0, "elements", 0, NULL);
		L->transient = L->kept;
	} else if (name_is(w, n, "EagerAttention") || name_is(w, n, "SDPA")) {
		uint64_t h = get(g, ng, 0, "heads", 0, NULL);
		if (!h)
			return fail(P, "an attention needs its heads");
		if (name_is(w, n, "SDPA"))
			L->sdpa_heads = (double)h;
		else
			L->attn_heads = 3.0 * (double)h; /* softmax output, dropout mask, dropped probabilities */
	} else {
		static const char *const widthless[] = {
			"ReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "Mish", "LeakyReLU", "ELU", "Softmax", "LogSoftmax",
			"Dropout", "Dropout1d", "Dropout2d", "Identity", "Flatten", "MaxPool1d", "MaxPool2d",
			"AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d",
			"AdaptiveMaxPool2d", "Softplus", "Hardtanh", "PReLU",
		};
		size_t k = 0;
		while (k < sizeof widthless / sizeof widthless[0] && !name_is(w, n, widthless[k]))
			k++;
		if (k == sizeof widthless / sizeof widthless[0])
			return fail(P, sl_arena_printf(P->a, "unknown layer '%.*s'", (int)(n > 40 ? 40 : n), w));
		(void)given;
		bool none = name_is(w, n, "Identity") || name_is(w, n, "Flatten");
		/* an activation or dropout keeps one tensor of its width (its output, input or mask) */
		L->kept = none ? 0 : (double)prev;
		L->transient = 2.0 * (double)prev;
		if (name_is(w, n, "PReLU"))
			L->params = get(g, ng, 0, "num_parameters", 1, NULL);
	}
	P->width = L->out;
	return true;
}

static bool items(struct parser *P, unsigned depth, struct layer *sum, char close);

static void add(struct layer *sum, const struct layer *L, uint64_t times)
{
	sum->params = sat_add(sum->params, sat_mul(L->params, times));
	sum->matmul = sat_add(sum->matmul, sat_mul(L->matmul, times));
	sum->kept += (double)times * L->kept;
	if (L->transient > sum->transient)
		sum->transient = L->transient;
	sum->attn_heads += (double)times * L->attn_heads;
	sum->sdpa_heads += (double)times * L->sdpa_heads;
}

static bool item(struct parser *P, unsigned depth, struct layer *sum)
{
	skip_ws(P);
	uint64_t times = 1;
	if (isdigit((unsigned char)*P->p) || *P->p == '{') {
		if (!size(P, &times, NULL))
			return false;
		skip_ws(P);
		if (*P->p != '*')
			return fail(P, "expected '*' after a repeat count");
		P->p++;
		skip_ws(P);
		if (!times)
			return fail(P, "a repeat count of 0");
		if (P->expanded + times > MAX_LAYERS || times > MAX_LAYERS)
			return fail(P, "too many layers");
	}
	if (*P->p == '[') {
		if (depth >= MAX_DEPTH)
			return fail(P, "groups nested too deep");
		P->p++;
		struct layer group = {0};
		uint64_t before = P->expanded;
		if (!items(P, depth + 1, &group, ']'))
			return false;
		if (*P->p != ']')
			return fail(P, "expected ']'");
		P->p++;
		uint64_t inside = P->expanded - before;
		P->expanded = sat_add(before, sat_mul(inside, times));
		if (P->expanded > MAX_LAYERS)
			return fail(P, "too many layers");
		add(sum, &group, times);
		return true;
	}
	const char *w = P->p;
	while (isalnum((unsigned char)*P->p) || *P->p == '_' || *P->p == '.')
		P->p++;
	if (P->p == w)
		return fail(P, "expected a layer name");
	/* a qualified name (nn.Linear, torch.nn.LSTM) is its last part */
	const char *dot = w;
	for (const char *q = w; q < P->p; q++)
		if (*q == '.')
			dot = q + 1;
	w = dot;
	size_t n = (size_t)(P->p - w);
	struct arg g[MAX_ARGS];
	size_t ng = 0;
	skip_ws(P);
	if (*P->p == '(') {
		P->p++;
		skip_ws(P);
		while (*P->p && *P->p != ')') {
			if (ng == MAX_ARGS)
				return fail(P, "too many arguments");
			if (!parse_arg(P, &g[ng++]))
				return false;
			skip_ws(P);
			if (*P->p == ',') {
				P->p++;
				continue;
			}
			if (*P->p != ')')
				return fail(P, "expected ',' or ')'");
		}
		if (*P->p != ')')
			return fail(P, "expected ')'");
		P->p++;
	}
	struct layer L;
	const char *end = P->p;
	P->p = w; /* a refusal points at the layer's name */
	if (!layer(P, w, n, g, ng, &L))
		return false;
	P->p = end;
	P->expanded = sat_add(P->expanded, times);
	if (P->expanded > MAX_LAYERS)
		return fail(P, "too many layers");
	if (L.params > P->m->largest)
		P->m->largest = L.params;
	add(sum, &L, times);
	return true;
}

static bool items(struct parser *P, unsigned depth, struct layer *sum, char close)
{
	for (;;) {
		if (!item(P, depth, sum))
			return false;
		skip_ws(P);
		if (*P->p == ';') {
			P->p++;
			skip_ws(P);
			if (!*P->p || *P->p == close)
				return true; /* a trailing ';' */
			continue;
		}
		return true;
	}
}

int sl_modules_parse(struct sl_arena *a, const char *spec, struct sl_modules *out, const char **why)
{
	return sl_modules_parse_env(a, spec, NULL, out, why);
}

int sl_modules_parse_env(struct sl_arena *a, const char *spec, const struct sl_modules_env *env,
			 struct sl_modules *out, const char **why)
{
	memset(out, 0, sizeof *out);
	struct parser P = {.a = a, .s = spec ? spec : "", .p = spec ? spec : "", .m = out, .env = env};
	skip_ws(&P);
	if (strncmp(P.p, "<=", 2) == 0) {
		out->bound = true;
		P.p += 2;
	}
	skip_ws(&P);
	struct layer sum = {0};
	bool ok = *P.p ? items(&P, 0, &sum, 0) : fail(&P, "an empty layer list");
	skip_ws(&P);
	if (ok && *P.p)
		ok = fail(&P, "unexpected text");
	if (!ok) {
		if (why)
			*why = P.why;
		memset(out, 0, sizeof *out);
		return -1;
	}
	out->params = sum.params;
	out->matmul = sum.matmul;
	out->kept = sum.kept + (double)P.width; /* the loss keeps the last output (logits, scores) */
	out->transient = sum.transient;
	out->attn_heads = sum.attn_heads;
	out->sdpa_heads = sum.sdpa_heads;
	out->width = P.width;
	out->layers = (uint32_t)(P.expanded > UINT32_MAX ? UINT32_MAX : P.expanded);
	out->bound |= P.ranged || (env && env->range);
	out->text = sl_arena_strdup(a, spec);
	return 0;
}

const struct sl_model *sl_model_from_modules(struct sl_arena *a, const struct sl_modules *mods)
{
	if (!mods || !mods->params)
		return NULL;
	struct sl_model *m = sl_arena_alloc(a, sizeof *m);
	sl_arch_init(&m->arch, SL_FAMILY_CUSTOM);
	struct sl_modules *copy = sl_arena_alloc(a, sizeof *copy);
	*copy = *mods;
	m->arch.modules = copy;
	m->arch.kind = SL_ARCH_ENCODER;
	m->task = SL_TASK_SEQ_CLS;
	m->name = sl_arena_printf(a, "custom-%s%llu-params", mods->bound ? "le-" : "", (unsigned long long)mods->params);
	m->source = mods->text;
	m->resolved_by = "modules";
	m->resolved_from = mods->text;
	m->resolved_note = sl_arena_printf(a, "a custom nn.Module of %u layers, %s%llu parameters counted from its layer "
					   "list%s",
					   mods->layers, mods->bound ? "at most " : "", (unsigned long long)mods->params,
					   mods->bound ? " (its sizes are upper bounds)" : "");
	return m;
}
