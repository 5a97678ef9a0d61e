/* memory/catalog: not written yet */
static const int placeholder_catalog = 0;
const int *sl_placeholder_catalog(void);
const int *sl_placeholder_catalog(void) { return &placeholder_catalog; }
