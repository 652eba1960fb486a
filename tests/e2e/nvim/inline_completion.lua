-- Headless scenario for tests/e2e/test_neovim_inline_completion.py: open a file, type in Insert
-- mode, wait for lsp-agent's ghost text, accept it with <Tab>. Environment: LSP_AGENT_TEST_CMD
-- (JSON list), LSP_AGENT_TEST_SETTINGS (JSON object), LSP_AGENT_TEST_FILE, LSP_AGENT_TEST_LINE
-- (1-based line to type at the end of), LSP_AGENT_TEST_TYPE (text to type),
-- LSP_AGENT_TEST_EXPECT (the ghost text to wait for), LSP_AGENT_TEST_OUT.
-- Writes {ok, error, ghost, line_after, engine, notes} to LSP_AGENT_TEST_OUT and quits.
local out = { ok = false, notes = {} }
local env = vim.env
local TIMEOUT = tonumber(env.LSP_AGENT_TEST_TIMEOUT_MS or "60000")

vim.notify = function(msg, level)
  out.notes[#out.notes + 1] = { msg = tostring(msg), level = level }
end

local function finish(err)
  if err then
    out.error = tostring(err)
  end
  vim.fn.writefile({ vim.fn.json_encode(out) }, env.LSP_AGENT_TEST_OUT)
  vim.cmd("qa!")
end

-- Poll `check` every 50 ms (the editor's loop keeps running: typing, timers, LSP replies);
-- `next_step(value)` runs once it returns a value; the scenario fails after TIMEOUT ms.
local function when(what, check, next_step)
  local deadline = vim.loop.now() + TIMEOUT
  local function poll()
    local ok, value = pcall(check)
    if not ok then
      return finish(value)
    end
    if value ~= nil and value ~= false then
      local done, err = pcall(next_step, value)
      if not done then
        finish(err)
      end
      return
    end
    if vim.loop.now() > deadline then
      return finish("timed out waiting for " .. what)
    end
    vim.defer_fn(poll, 50)
  end
  poll()
end

-- The ghost text of any namespace (Neovim 0.12's or the plugin's): first line .. "\n" .. more.
local function ghost(bufnr)
  for _, id in pairs(vim.api.nvim_get_namespaces()) do
    for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, id, 0, -1, { details = true })) do
      local details = mark[4] or {}
      if details.virt_text then
        local text = {}
        for _, chunk in ipairs(details.virt_text) do
          text[#text + 1] = chunk[1]
        end
        local lines = { table.concat(text) }
        for _, virt_line in ipairs(details.virt_lines or {}) do
          local parts = {}
          for _, chunk in ipairs(virt_line) do
            parts[#parts + 1] = chunk[1]
          end
          lines[#lines + 1] = table.concat(parts)
        end
        return table.concat(lines, "\n")
      end
    end
  end
  return nil
end

local function main()
  local lsp_agent = require("lsp_agent")
  lsp_agent.setup({
    cmd = vim.fn.json_decode(env.LSP_AGENT_TEST_CMD),
    settings = vim.fn.json_decode(env.LSP_AGENT_TEST_SETTINGS),
    notify_progress = false,
    completion = { debounce_ms = 50 },
  })
  -- `-u NONE` turns filetype detection off; Neovim 0.11+ (vim.lsp.enable) attaches on FileType.
  vim.cmd("filetype on")
  vim.cmd("edit " .. vim.fn.fnameescape(env.LSP_AGENT_TEST_FILE))
  local bufnr = vim.api.nvim_get_current_buf()
  local line = tonumber(env.LSP_AGENT_TEST_LINE)
  out.engine = vim.lsp.inline_completion and "vim.lsp.inline_completion" or "lsp_agent.completion"
  when("the server to attach", function()
    local client = lsp_agent.client(bufnr)
    local caps = client and (client.server_capabilities or client.resolved_capabilities)
    return client ~= nil and vim.lsp.buf_is_attached(bufnr, client.id) and caps and not vim.tbl_isempty(caps) and client
  end, function(client)
    out.advertised = client.server_capabilities.inlineCompletionProvider ~= nil
    vim.api.nvim_win_set_cursor(0, { line, 0 })
    vim.api.nvim_feedkeys("A" .. env.LSP_AGENT_TEST_TYPE, "n", false)
    local typed = vim.api.nvim_buf_get_lines(bufnr, line - 1, line, false)[1]
    when("the typing", function()
      local now = vim.api.nvim_buf_get_lines(bufnr, line - 1, line, false)[1]
      return vim.api.nvim_get_mode().mode:match("^i") and now ~= typed and now
    end, function(now)
      out.line_typed = now
      -- Neovim 0.12 keeps showing the previous item until the new answer comes: wait for the
      -- ghost text of this position.
      local expected = env.LSP_AGENT_TEST_EXPECT
      when("the ghost text " .. vim.inspect(expected), function()
        local text = ghost(bufnr)
        out.last_ghost = text
        return text == expected and text
      end, function(text)
        out.ghost = text
        vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Tab>", true, false, true), "m", false)
        when("the accepted text", function()
          local after = vim.api.nvim_buf_get_lines(bufnr, line - 1, line, false)[1]
          return after ~= now and after
        end, function(after)
          out.line_after = after
          out.cursor = vim.api.nvim_win_get_cursor(0)
          out.ghost_after = ghost(bufnr)
          out.ok = true
          vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Esc>", true, false, true), "n", false)
          vim.defer_fn(function()
            finish()
          end, 100)
        end)
      end)
    end)
  end)
end

vim.schedule(function()
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    finish(err)
  end
end)
