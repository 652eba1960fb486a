-- Headless scenario for tests/e2e/test_neovim.py. Environment:
--   LSP_AGENT_TEST_CMD (JSON list), LSP_AGENT_TEST_SETTINGS (JSON object), LSP_AGENT_TEST_FILE,
--   LSP_AGENT_TEST_MODE (attach | approve | reject | cancel | annotated-approve | annotated-reject |
--   hunks | undo), LSP_AGENT_TEST_OUT (result JSON), LSP_AGENT_TEST_KEYS (keys typed in the
--   hunk review, one per floating diff).
-- Writes {ok, error, events, prompts, ...} to LSP_AGENT_TEST_OUT and quits.
local out = { ok = false, events = {}, prompts = {}, notes = {} }
local env = vim.env
local mode = env.LSP_AGENT_TEST_MODE or "attach"
local TIMEOUT = tonumber(env.LSP_AGENT_TEST_TIMEOUT_MS or "60000")

local function event(e)
  out.events[#out.events + 1] = e
end

local function finish()
  local ok_state, lsp_agent = pcall(require, "lsp_agent")
  if ok_state then
    out.status = lsp_agent.status()
  end
  vim.fn.writefile({ vim.fn.json_encode(out) }, env.LSP_AGENT_TEST_OUT)
  vim.cmd("qa!")
end

local function check(cond, message)
  if not cond then
    error(message, 2)
  end
end

-- Every notification, for the test's diagnostics.
vim.notify = function(msg, level)
  out.notes[#out.notes + 1] = { msg = tostring(msg), level = level }
end

-- The approval UI: answer vim.ui.select the way the mode asks.
local shown_diff = false
local action_titles = {}
local function action_title(item)
  local action = item.action or item[2] or {}
  return action.title
end
vim.ui.select = function(items, opts, on_choice)
  if type(items[1]) == "table" then -- the code action menu (0.7: {client_id, action})
    for _, item in ipairs(items) do
      action_titles[#action_titles + 1] = action_title(item)
      if action_title(item) == "Agent: explain" then
        event("select:Agent: explain")
        return on_choice(item)
      end
    end
    return on_choice(nil)
  end
  out.prompts[#out.prompts + 1] = { prompt = opts and opts.prompt, items = items }
  local choice
  if vim.tbl_contains(items, "Show diff") and not shown_diff and mode == "approve" then
    shown_diff = true
    choice = "Show diff"
  elseif mode == "approve" then
    choice = items[1] == "Apply" and "Apply" or items[1]
  else
    choice = "Reject"
  end
  event("select:" .. choice)
  on_choice(choice)
end

-- annotated-* modes: Neovim 0.12's own "Apply all changes?" confirm() for needsConfirmation edits.
local annotated = mode:match("^annotated%-") ~= nil
if annotated then
  vim.fn.confirm = function(msg)
    out.prompts[#out.prompts + 1] = { prompt = msg, items = { "confirm" } }
    event("confirm:" .. mode)
    return mode == "annotated-approve" and 1 or 2
  end
end

-- hunks / undo modes: real keys typed into the hunk review's floating diffs, one per hunk.
local hunk_mode = mode == "hunks" or mode == "undo"
local keys = env.LSP_AGENT_TEST_KEYS or ""
out.hunks = {}
if hunk_mode then
  vim.api.nvim_create_autocmd("User", {
    pattern = "LspAgentReviewHunk",
    callback = function()
      local review = require("lsp_agent.review")
      local shown = review.current
      out.hunks[#out.hunks + 1] = { index = shown.index, total = shown.total, lines = shown.lines }
      local key = keys:sub(#out.hunks, #out.hunks)
      event("key:" .. key)
      vim.api.nvim_feedkeys(key ~= "" and key or "R", "t", false)
    end,
  })
end

local function wait_for_note(pattern, what)
  check(vim.wait(TIMEOUT, function()
    for _, note in ipairs(out.notes) do
      if note.msg:find(pattern) then
        return true
      end
    end
    return false
  end, 50), "no notification " .. what)
end

local function main()
  local lsp_agent = require("lsp_agent")
  local state = require("lsp_agent.state")
  local review = "dialog"
  if annotated then
    review = "builtin"
  elseif hunk_mode then
    review = "hunks"
  end
  lsp_agent.setup({
    cmd = vim.fn.json_decode(env.LSP_AGENT_TEST_CMD),
    settings = vim.fn.json_decode(env.LSP_AGENT_TEST_SETTINGS or "{}"),
    review = review,
  })
  -- `-u NONE` turns filetype detection off; Neovim 0.11+ (vim.lsp.enable) attaches on FileType.
  vim.cmd("filetype on")
  vim.cmd("edit " .. vim.fn.fnameescape(env.LSP_AGENT_TEST_FILE))
  local bufnr = vim.api.nvim_get_current_buf()
  local attached = vim.wait(20000, function()
    local client = lsp_agent.client(bufnr)
    return client ~= nil
      and vim.lsp.buf_is_attached(bufnr, client.id)
      and not vim.tbl_isempty(client.server_capabilities or client.resolved_capabilities or {})
  end, 50)
  check(attached, "the lsp-agent client did not attach")
  local client = lsp_agent.client(bufnr)
  out.client_name = client.name
  out.root_dir = client.config.root_dir or (client.workspace_folders and client.workspace_folders[1].name)
  event("attached")
  if mode == "attach" then
    out.ok = true
    return
  end

  if mode == "cancel" then
    vim.cmd("1,2LspAgentRun add a comment")
    check(vim.wait(15000, function()
      return state.running_job() ~= nil
    end, 50), "no job started")
    event("started")
    out.status_running = lsp_agent.status()
    lsp_agent.cancel()
  else
    -- The code action path: textDocument/codeAction -> `Agent: explain` -> lspAgent.run.
    vim.api.nvim_win_set_cursor(0, { 2, 4 })
    local titles = action_titles
    vim.lsp.buf.code_action() -- the menu is answered by vim.ui.select above
    check(vim.wait(15000, function()
      return state.last_job ~= nil
    end, 50), "the code action did not start a job; actions seen: " .. table.concat(titles, ", "))
    out.actions = titles
    event("started")
  end
  local job = state.last_job
  local done = vim.wait(TIMEOUT, function()
    return state.jobs[job] and state.jobs[job].done
  end, 50)
  check(done, "the job did not end; status: " .. lsp_agent.status())
  event("done")
  out.last_result = state.last_result
  if mode == "undo" then
    wait_for_note(":LspAgentUndo puts it back", "offering the undo")
    out.lines_before_undo = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    vim.cmd("LspAgentUndo")
    wait_for_note("lsp%-agent: undid job", "of the undo")
    event("undone")
    vim.wait(2000, function()
      return not vim.bo[bufnr].modified
    end, 50)
  end
  out.buffer_lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  out.buffer_modified = vim.bo[bufnr].modified
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.bo[b].filetype == "diff" then
      out.diff_lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
    end
  end
  out.ok = true
end

local timer = vim.loop.new_timer()
timer:start(
  TIMEOUT + 60000,
  0,
  vim.schedule_wrap(function()
    out.error = "scenario timed out"
    finish()
  end)
)

vim.schedule(function()
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    out.error = tostring(err)
  end
  finish()
end)
