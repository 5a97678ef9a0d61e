/* scalar: PLACEHOLDER until the PyYAML resolver lands — types everything as a string. */
#include "sweeplint/scalar.h"

#include "sweeplint/arena.h"

struct sl_scalar_resolver {
	int unused;
};

struct sl_scalar_resolver *sl_scalar_resolver_new(struct sl_arena *a)
{
	return sl_arena_alloc(a, sizeof(struct sl_scalar_resolver));
}

struct sl_value sl_scalar_resolve(const struct sl_scalar_resolver *r, const char *text, size_t len, bool plain,
				  const char *tag, bool *tag_error)
{
	(void)r, (void)text, (void)len, (void)plain, (void)tag, (void)tag_error;
	struct sl_value v = {.type = SL_V_STR};
	return v;
}
