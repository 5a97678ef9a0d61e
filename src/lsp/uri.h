/*
 * uri: file:// URIs (RFC 8089, as editors send them) to and from paths.
 */
#ifndef SWEEPLINT_LSP_URI_H
#define SWEEPLINT_LSP_URI_H

/* The path of a file: URI, percent-decoded (malloc'd); NULL for another scheme or a path with a NUL. */
char *sl_lsp_uri_path(const char *uri);
/* The file: URI of a path (made absolute against the working directory; malloc'd). */
char *sl_lsp_path_uri(const char *path);

#endif
