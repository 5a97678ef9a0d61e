-- Neovim's built-in LSP client attached to `sweeplint lsp` (tests/lsp/run_nvim.py runs it headless).
-- Opens $SWEEP, waits for the server's diagnostics, writes them as JSON to $OUT, then quits.
-- vim.lsp.start (0.8+) when present, else vim.lsp.start_client + buf_attach_client (0.7).
local exe, sweep, out = os.getenv("SWEEPLINT"), os.getenv("SWEEP"), os.getenv("OUT")
vim.cmd("edit " .. vim.fn.fnameescape(sweep))
local buf = vim.api.nvim_get_current_buf()
local config = {
  name = "sweeplint",
  cmd = { exe, "lsp" },
  root_dir = vim.fn.fnamemodify(sweep, ":p:h"),
}
local client_id
if vim.lsp.start then
  client_id = vim.lsp.start(config)
else
  client_id = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(buf, client_id)
end
local ok = vim.wait(20000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
local result = { attached = client_id ~= nil, waited = ok, diagnostics = {} }
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(result.diagnostics, {
    lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    severity = d.severity, message = d.message, source = d.source,
    code = (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or vim.NIL,
  })
end
local client = vim.lsp.get_client_by_id(client_id)
result.encoding = client and client.offset_encoding or vim.NIL
local f = assert(io.open(out, "w"))
f:write(vim.fn.json_encode(result))
f:close()
if client then
  client.stop()
  vim.wait(5000, function() return client.is_stopped() end, 50)
end
vim.cmd("qa!")
