/* rewrite/prune: not written yet */
static const int placeholder_prune = 0;
const int *sl_placeholder_prune(void);
const int *sl_placeholder_prune(void) { return &placeholder_prune; }
