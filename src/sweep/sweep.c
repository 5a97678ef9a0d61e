/* sweep/sweep: not written yet */
static const int placeholder_sweep = 0;
const int *sl_placeholder_sweep(void);
const int *sl_placeholder_sweep(void) { return &placeholder_sweep; }
