/* yaml/edit: not written yet */
static const int placeholder_edit = 0;
const int *sl_placeholder_edit(void);
const int *sl_placeholder_edit(void) { return &placeholder_edit; }
