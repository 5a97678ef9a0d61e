/* report/text: not written yet */
static const int placeholder_text = 0;
const int *sl_placeholder_text(void);
const int *sl_placeholder_text(void) { return &placeholder_text; }
