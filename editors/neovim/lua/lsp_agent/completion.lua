-- Inline completions (ghost text) from lsp-agent's `textDocument/inlineCompletion`.
--
-- Neovim 0.12+: Neovim's own `vim.lsp.inline_completion`, enabled for the buffer; the accept
-- key calls `vim.lsp.inline_completion.get()`.
-- Neovim 0.7-0.11: this module asks the server itself (after a short pause in typing, the
-- previous request cancelled), shows the first item as virtual text at the cursor (inline on
-- 0.10+, drawn over the line's rest on 0.7-0.9; more lines below it) and inserts it on the accept
-- key. Leaving Insert mode, or typing on, hides it.
local M = {}

M.opts = { enable = true, accept = "<Tab>", debounce_ms = 150 }

local ns = vim.api.nvim_create_namespace("lsp_agent_inline_completion")
local METHOD = "textDocument/inlineCompletion"
local uv = vim.uv or vim.loop

local function has(version)
  return vim.fn.has("nvim-" .. version) == 1
end

--- Does `client` answer inline completions (advertised at initialize)?
function M.supported(client)
  local caps = client.server_capabilities or client.resolved_capabilities or {}
  return caps.inlineCompletionProvider ~= nil and caps.inlineCompletionProvider ~= false
end

local function client_request(client, method, params, handler, bufnr)
  if has("0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_cancel(client, id)
  if has("0.11") then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

-- ---- Neovim 0.7-0.11: ghost text drawn by this module --------------------------------------
local buffers = {} -- bufnr -> { client, timer, request_id, shown = { text, row, col, tick } }

local function hide(bufnr)
  local b = buffers[bufnr]
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  end
  if b then
    b.shown = nil
  end
end

local function show(bufnr, text, row, col)
  hide(bufnr)
  local lines = vim.split(text, "\n", { plain = true })
  local opts = {
    virt_text = { { lines[1], "Comment" } },
    virt_text_pos = has("0.10") and "inline" or "overlay",
    hl_mode = "combine",
  }
  if #lines > 1 then
    opts.virt_lines = {}
    for i = 2, #lines do
      opts.virt_lines[#opts.virt_lines + 1] = { { lines[i], "Comment" } }
    end
  end
  vim.api.nvim_buf_set_extmark(bufnr, ns, row, col, opts)
  buffers[bufnr].shown = { text = text, row = row, col = col, tick = vim.b[bufnr].changedtick }
end

local function cursor()
  local pos = vim.api.nvim_win_get_cursor(0)
  return pos[1] - 1, pos[2]
end

local function request(bufnr)
  local b = buffers[bufnr]
  if b == nil or vim.api.nvim_get_current_buf() ~= bufnr or not vim.api.nvim_get_mode().mode:match("^i") then
    return
  end
  if b.request_id then
    pcall(client_cancel, b.client, b.request_id)
    b.request_id = nil
  end
  local params = vim.lsp.util.make_position_params(0, b.client.offset_encoding)
  params.context = { triggerKind = 2 } -- Automatic
  local row, col = cursor()
  local tick = vim.b[bufnr].changedtick
  local ok, id = client_request(b.client, METHOD, params, function(err, result)
    b.request_id = nil
    if err or result == nil or vim.b[bufnr].changedtick ~= tick then
      return
    end
    local now_row, now_col = cursor()
    if now_row ~= row or now_col ~= col or not vim.api.nvim_get_mode().mode:match("^i") then
      return
    end
    local items = result.items or result
    local first = items[1]
    local text = first and (type(first.insertText) == "string" and first.insertText or first.insertText.value)
    if text and text ~= "" then
      show(bufnr, text, row, col)
    end
  end, bufnr)
  if ok then
    b.request_id = id
  end
end

local function schedule_request(bufnr)
  local b = buffers[bufnr]
  if b == nil then
    return
  end
  hide(bufnr)
  if b.timer then
    b.timer:stop()
  else
    b.timer = uv.new_timer()
  end
  b.timer:start(M.opts.debounce_ms, 0, vim.schedule_wrap(function()
    request(bufnr)
  end))
end

--- Insert the shown completion at the cursor (Neovim 0.7-0.11); false when none is shown.
function M.accept(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local b = buffers[bufnr]
  local shown = b and b.shown
  if shown == nil or vim.b[bufnr].changedtick ~= shown.tick then
    return false
  end
  hide(bufnr)
  vim.schedule(function()
    local lines = vim.split(shown.text, "\n", { plain = true })
    vim.api.nvim_buf_set_text(bufnr, shown.row, shown.col, shown.row, shown.col, lines)
    local last = #lines == 1 and shown.col + #lines[1] or #lines[#lines]
    vim.api.nvim_win_set_cursor(0, { shown.row + #lines, last })
  end)
  return true
end

--- The text shown as ghost text in `bufnr` (nil when none), for statuslines and tests.
function M.shown(bufnr)
  local b = buffers[bufnr or vim.api.nvim_get_current_buf()]
  return b and b.shown and b.shown.text or nil
end

local function accept_key(bufnr, accept)
  if M.opts.accept == nil or M.opts.accept == "" then
    return
  end
  local key = M.opts.accept
  vim.keymap.set("i", key, function()
    if accept() then
      return ""
    end
    return vim.api.nvim_replace_termcodes(key, true, false, true)
  end, { buffer = bufnr, expr = true, desc = "lsp-agent: accept the inline completion" })
end

local function attach_fallback(client, bufnr)
  if buffers[bufnr] then
    buffers[bufnr].client = client
    return
  end
  buffers[bufnr] = { client = client }
  local group = vim.api.nvim_create_augroup("lsp_agent_inline_" .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ "TextChangedI", "CursorMovedI" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      local shown = buffers[bufnr] and buffers[bufnr].shown
      if shown then
        local row, col = cursor()
        if row == shown.row and col == shown.col and vim.b[bufnr].changedtick == shown.tick then
          return -- the ghost text is still where it belongs
        end
      end
      schedule_request(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd({ "InsertLeave", "BufLeave" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      hide(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd("BufUnload", {
    group = group,
    buffer = bufnr,
    callback = function()
      local b = buffers[bufnr]
      if b and b.timer then
        b.timer:stop()
        b.timer:close()
      end
      buffers[bufnr] = nil
    end,
  })
  accept_key(bufnr, function()
    return M.accept(bufnr)
  end)
end

-- ---- entry point ---------------------------------------------------------------------------
--- Called when the lsp-agent client attaches to `bufnr`.
function M.attach(client, bufnr)
  if not M.opts.enable or not M.supported(client) then
    return
  end
  if vim.lsp.inline_completion then -- Neovim 0.12+
    vim.lsp.inline_completion.enable(true, { bufnr = bufnr })
    accept_key(bufnr, function()
      return vim.lsp.inline_completion.get({ bufnr = bufnr })
    end)
    return
  end
  attach_fallback(client, bufnr)
end

return M
