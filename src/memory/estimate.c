/* memory/estimate: not written yet */
static const int placeholder_estimate = 0;
const int *sl_placeholder_estimate(void);
const int *sl_placeholder_estimate(void) { return &placeholder_estimate; }
