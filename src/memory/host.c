/* memory/host: not written yet */
static const int placeholder_host = 0;
const int *sl_placeholder_host(void);
const int *sl_placeholder_host(void) { return &placeholder_host; }
