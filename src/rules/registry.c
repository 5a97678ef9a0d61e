/* rules/registry: not written yet */
static const int placeholder_registry = 0;
const int *sl_placeholder_registry(void);
const int *sl_placeholder_registry(void) { return &placeholder_registry; }
