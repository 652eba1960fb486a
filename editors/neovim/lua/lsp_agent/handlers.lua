-- Handlers for the lsp-agent client only (passed as the client's `handlers`).
local state = require("lsp_agent.state")
local review = require("lsp_agent.review")

local M = {}

M.opts = { save_after_apply = true, approval_timeout_ms = 600000, notify_progress = true, review = "hunks" }

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = "lsp-agent" })
end
M.notify = notify

local function default_handler(method)
  return vim.lsp.handlers[method]
end

--- `workspace/executeCommand` of `command` with one argument; errors are notified.
function M.execute(client, command, argument, bufnr, callback)
  local params = { command = command, arguments = { argument } }
  local request = vim.fn.has("nvim-0.11") == 1 and function(...)
    return client:request(...)
  end or client.request -- 0.11+ wants the method form, 0.7-0.10 the field
  request("workspace/executeCommand", params, function(err, result)
    if err then
      notify("lsp-agent: " .. command .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if callback then
      callback(err, result)
    end
  end, bufnr)
end

-- After a job that changed files: say so, and how to put them back.
local function offer_undo(client_id, job_id)
  local client = vim.lsp.get_client_by_id(client_id)
  if client == nil then
    return
  end
  M.execute(client, "lspAgent.status", {}, nil, function(err, status)
    local last = not err and type(status) == "table" and status.lastJob or nil
    if type(last) ~= "table" or last.jobId ~= job_id or last.undone then
      return
    end
    local changed = type(last.changedFiles) == "table" and last.changedFiles or {}
    if #changed > 0 then
      notify(string.format("lsp-agent: job %d changed %s; :LspAgentUndo puts it back", job_id, table.concat(changed, ", ")))
    end
  end)
end

-- window/showMessageRequest: the approval question (Apply / Show diff / Reject, Run / Reject),
-- answered through vim.ui.select. Neovim answers server requests synchronously, so an
-- asynchronous vim.ui.select (telescope, dressing, ...) is awaited with vim.wait.
M["window/showMessageRequest"] = function(_, params, _ctx)
  local actions = params and params.actions or {}
  if #actions == 0 then
    notify(params.message or "", params.type == 1 and vim.log.levels.ERROR or nil)
    return vim.NIL
  end
  local titles = {}
  for _, action in ipairs(actions) do
    titles[#titles + 1] = action.title
  end
  local answered, choice = false, nil
  state.waiting = true
  local ok = pcall(vim.ui.select, titles, { prompt = params.message, kind = "lsp_agent_approval" }, function(item)
    answered, choice = true, item
  end)
  if ok and not answered then
    pcall(vim.wait, M.opts.approval_timeout_ms, function()
      return answered
    end, 50)
  end
  state.waiting = false
  if choice == nil then
    return vim.NIL -- dismissed: the server takes it as a rejection
  end
  for _, action in ipairs(actions) do
    if action.title == choice then
      return action
    end
  end
  return vim.NIL
end

--- Open text (or a file's text) in a read-only scratch split with filetype=diff.
function M.show_diff(lines, name)
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "diff"
  pcall(vim.api.nvim_buf_set_name, buf, "lsp-agent://" .. (name or "patch.diff"))
  return buf
end

-- window/showDocument: the server's `Show diff` writes the patch to a .diff file and asks us to
-- show it. Diffs open in a scratch split; anything else goes to Neovim's default handler.
M["window/showDocument"] = function(err, params, ctx, config)
  local uri = params and params.uri or ""
  if uri:match("%.diff$") or uri:match("%.patch$") then
    local path = vim.uri_to_fname(uri)
    local ok, lines = pcall(vim.fn.readfile, path)
    if not ok then
      return { success = false }
    end
    M.show_diff(lines, vim.fn.fnamemodify(path, ":t"))
    return { success = true }
  end
  local default = default_handler("window/showDocument")
  if default then
    return default(err, params, ctx, config)
  end
  if uri:match("^file:") then
    vim.cmd("edit " .. vim.fn.fnameescape(vim.uri_to_fname(uri)))
    return { success = true }
  end
  return { success = false }
end

local function edited_uris(edit)
  local uris = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    local uri = change.textDocument and change.textDocument.uri or change.uri
    if uri then
      uris[#uris + 1] = uri
    end
  end
  for uri, _ in pairs(edit.changes or {}) do
    uris[#uris + 1] = uri
  end
  return uris
end

-- workspace/applyEdit: Neovim's default handler edits buffers; an approved patch should also
-- reach the disk, so buffers that had no unsaved changes before the edit are written. With
-- review = "hunks", a patch that asks for confirmation is first reviewed hunk by hunk
-- (lsp_agent.review) and only the accepted hunks are applied.
M["workspace/applyEdit"] = function(err, params, ctx, config)
  local edit = params and params.edit or {}
  if M.opts.review == "hunks" and review.wanted(edit) then
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    state.waiting = true
    local ok, accepted = pcall(review.choose, review.units(edit), params.label, client and client.offset_encoding or "utf-16")
    state.waiting = false
    if not ok then
      notify("lsp-agent: hunk review failed: " .. tostring(accepted), vim.log.levels.ERROR)
      return { applied = false, failureReason = "the hunk review failed: " .. tostring(accepted) }
    end
    if #accepted == 0 then
      return { applied = false } -- every hunk rejected: the server hears "rejected"
    end
    params = vim.tbl_extend("force", params, { edit = review.filtered(accepted) })
    edit = params.edit
  end
  local clean = {}
  for _, uri in ipairs(edited_uris(edit)) do
    local bufnr = vim.uri_to_bufnr(uri)
    if not vim.api.nvim_buf_is_loaded(bufnr) or not vim.bo[bufnr].modified then
      clean[#clean + 1] = bufnr
    end
  end
  local confirm = false
  for _, annotation in pairs(edit.changeAnnotations or {}) do
    confirm = confirm or annotation.needsConfirmation == true
  end
  local ticks = {}
  for _, uri in ipairs(edited_uris(edit)) do
    local bufnr = vim.uri_to_bufnr(uri)
    ticks[bufnr] = vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_changedtick(bufnr) or -1
  end
  local result = default_handler("workspace/applyEdit")(err, params, ctx, config)
  if confirm and result and result.applied then
    -- Neovim 0.12 asks "Apply all changes?" for needsConfirmation edits but answers
    -- applied=true even when the user says No: report an untouched edit as declined.
    local changed = false
    for bufnr, tick in pairs(ticks) do
      changed = changed or (vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_changedtick(bufnr) ~= tick)
    end
    if not changed then
      result = { applied = false }
    end
  end
  if result and result.applied and M.opts.save_after_apply then
    for _, bufnr in ipairs(clean) do
      if vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified then
        vim.api.nvim_buf_call(bufnr, function()
          vim.cmd("silent keepalt write")
        end)
      end
    end
  end
  return result
end

-- $/progress: Neovim's own progress handling, plus lsp-agent's job state and notifications.
M["$/progress"] = function(err, params, ctx, config)
  local default = default_handler("$/progress")
  if default then
    pcall(default, err, params, ctx, config)
  end
  local value = params and params.value or {}
  local job_id = state.job_for_token(params and params.token)
  if value.kind == "begin" then
    state.progress = { title = value.title, message = value.message or value.title, percentage = value.percentage }
    if M.opts.notify_progress then
      notify((value.title or "lsp-agent") .. (value.message and (": " .. value.message) or ""))
    end
  elseif value.kind == "report" then
    state.progress = state.progress or {}
    state.progress.message = value.message or state.progress.message
    state.progress.percentage = value.percentage or state.progress.percentage
    if M.opts.notify_progress and value.message then
      notify("lsp-agent: " .. value.message)
    end
  elseif value.kind == "end" then
    if job_id == nil then
      job_id = state.running_job()
    end
    state.job_done(job_id, value.message)
    if M.opts.notify_progress then
      notify("lsp-agent: " .. (value.message or "done"))
    end
  end
end

-- window/showMessage: through vim.notify (the default echoes, which is easy to miss).
M["window/showMessage"] = function(_, params, ctx)
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  local message = params.message or ""
  local job_id = tonumber(message:match("^lsp%-agent %(job (%d+)%)"))
  notify(message, levels[params.type] or vim.log.levels.INFO)
  if job_id ~= nil then -- the server's last word on a job
    state.job_done(job_id, message)
    if ctx and ctx.client_id then
      offer_undo(ctx.client_id, job_id)
    end
  end
  return vim.NIL
end

return M
