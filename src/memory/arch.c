/* memory/arch: not written yet */
static const int placeholder_arch = 0;
const int *sl_placeholder_arch(void);
const int *sl_placeholder_arch(void) { return &placeholder_arch; }
