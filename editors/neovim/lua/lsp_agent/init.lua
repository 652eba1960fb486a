-- lsp-agent for Neovim 0.7+: starts `lsp-agent serve`, runs tasks, answers approvals.
local state = require("lsp_agent.state")
local handlers = require("lsp_agent.handlers")
local completion = require("lsp_agent.completion")

local M = {}

M.name = "lsp_agent"

M.defaults = {
  cmd = { "lsp-agent", "serve" },
  settings = {}, -- sent as initializationOptions: { MODEL_ID = "...", SANDBOX_BACKEND = "none", ... }
  root_markers = { ".git", "pyproject.toml" },
  filetypes = nil, -- nil: every file buffer
  save_after_apply = true, -- write clean buffers after an approved edit
  notify_progress = true,
  -- Advertise change-annotation support: the server then skips its Apply/Show diff/Reject dialog
  -- and sends edits with `needsConfirmation`; Neovim 0.12 confirms those with its own prompt.
  annotated_edits = false,
  approval_timeout_ms = 600000,
  -- Inline completions (ghost text) when the server has a completion model (settings
  -- COMPLETION_MODEL_ID): Neovim 0.12's vim.lsp.inline_completion, or the plugin's own ghost
  -- text on 0.7-0.11. `accept` is the Insert-mode key that accepts ("" for none).
  completion = { enable = true, accept = "<Tab>", debounce_ms = 150 },
}

M.config = vim.deepcopy(M.defaults)

local function has(version)
  return vim.fn.has("nvim-" .. version) == 1
end

local function get_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
  end
  local found = {}
  local all = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
  for _, client in pairs(all) do
    if client.name == M.name then
      found[#found + 1] = client
    end
  end
  return found
end

--- The lsp-agent client attached to `bufnr` (default: current buffer), or any running one.
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  return get_clients(bufnr)[1] or get_clients(nil)[1]
end

local function root_dir(path)
  if path == nil or path == "" then
    return (vim.uv or vim.loop).cwd()
  end
  local dir = vim.fn.fnamemodify(path, ":p:h")
  local best = nil
  for _, marker in ipairs(M.config.root_markers) do
    local hit = vim.fn.finddir(marker, dir .. ";")
    if hit == "" then
      hit = vim.fn.findfile(marker, dir .. ";")
    end
    if hit ~= "" then
      local root = vim.fn.fnamemodify((vim.fn.fnamemodify(hit, ":p"):gsub("/$", "")), ":h")
      if best == nil or #root > #best then
        best = root
      end
    end
  end
  return best or dir
end
M.root_dir = root_dir

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  caps.experimental.lspAgent = { prompt = true }
  -- `Show diff` arrives as window/showDocument of a .diff file, which our handler shows in a
  -- scratch split (Neovim 0.7 does not advertise showDocument itself).
  caps.window = caps.window or {}
  caps.window.showDocument = { support = true }
  -- Neovim applies versioned documentChanges (0.5+) but does not say so.
  caps.workspace = caps.workspace or {}
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  if not M.config.annotated_edits and caps.workspace and caps.workspace.workspaceEdit then
    -- vim.NIL (JSON null), not nil: 0.11+ deep-merges a config's capabilities into the defaults.
    caps.workspace.workspaceEdit.changeAnnotationSupport = vim.NIL
  end
  return caps
end

local function client_handlers()
  local out = {}
  for _, method in ipairs({
    "window/showMessageRequest",
    "window/showDocument",
    "workspace/applyEdit",
    "$/progress",
    "window/showMessage",
  }) do
    out[method] = handlers[method]
  end
  return out
end

local function base_config(root)
  return {
    name = M.name,
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = root and { { uri = vim.uri_from_fname(root), name = root } } or nil,
    init_options = M.config.settings,
    capabilities = capabilities(),
    handlers = client_handlers(),
    on_attach = function(client, bufnr)
      completion.attach(client, bufnr)
    end,
  }
end

local function attachable(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%w+://") then
    return false
  end
  local fts = M.config.filetypes
  if fts ~= nil and not vim.tbl_contains(fts, vim.bo[bufnr].filetype) then
    return false
  end
  return true
end

-- 0.7: one client per root, started with start_client and attached by hand.
local clients_by_root = {}
local function attach_0_7(bufnr)
  if not attachable(bufnr) then
    return
  end
  local root = root_dir(vim.api.nvim_buf_get_name(bufnr))
  local id = clients_by_root[root]
  -- get_client_by_id also sees a client still initializing (client_is_stopped does not).
  local client = id and vim.lsp.get_client_by_id(id)
  if client == nil or (client.is_stopped and client.is_stopped()) then
    id = vim.lsp.start_client(base_config(root))
    if id == nil then
      handlers.notify("lsp-agent: could not start " .. table.concat(M.config.cmd, " "), vim.log.levels.ERROR)
      return
    end
    clients_by_root[root] = id
  end
  if not vim.lsp.buf_is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

-- 0.8-0.10: vim.lsp.start reuses a client with the same name and root_dir.
local function attach_0_8(bufnr)
  if not attachable(bufnr) then
    return
  end
  local root = root_dir(vim.api.nvim_buf_get_name(bufnr))
  vim.lsp.start(base_config(root), { bufnr = bufnr })
end

local function start()
  if vim.lsp.config and vim.lsp.enable and has("0.11") then
    local cfg = base_config(nil)
    cfg.root_dir = nil
    cfg.workspace_folders = nil
    cfg.root_markers = M.config.root_markers
    cfg.filetypes = M.config.filetypes
    vim.lsp.config(M.name, cfg)
    vim.lsp.enable(M.name)
    return
  end
  local attach = has("0.8") and attach_0_8 or attach_0_7
  local group = vim.api.nvim_create_augroup("lsp_agent_attach", { clear = true })
  vim.api.nvim_create_autocmd({ "FileType", "BufEnter" }, {
    group = group,
    callback = function(args)
      attach(args.buf)
    end,
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      attach(bufnr)
    end
  end
end

-- ---- commands ---------------------------------------------------------------------------------
local function execute(client, command, argument, bufnr, callback)
  local params = { command = command, arguments = { argument } }
  local request = has("0.11") and function(...)
    return client:request(...)
  end or client.request -- 0.11+ wants the method form, 0.7-0.10 the field
  request("workspace/executeCommand", params, function(err, result)
    if err then
      handlers.notify("lsp-agent: " .. command .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if callback then
      callback(err, result)
    end
  end, bufnr)
end

--- Send `lspAgent.run {task, uri?, range?}`; records the job for :LspAgentCancel and status().
function M.run(task, opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if client == nil then
    handlers.notify("lsp-agent: the server is not running for this buffer", vim.log.levels.ERROR)
    return
  end
  local argument = { task = task }
  local name = vim.api.nvim_buf_get_name(bufnr)
  if opts.uri then
    argument.uri = opts.uri
  elseif name ~= "" then
    argument.uri = vim.uri_from_bufnr(bufnr)
  end
  argument.range = opts.range
  execute(client, "lspAgent.run", argument, bufnr, function(err, result)
    if not err and type(result) == "table" and result.jobId ~= nil then
      state.job_started(result.jobId, result.progressToken, task)
      handlers.notify(string.format("lsp-agent: job %s started: %s", tostring(result.jobId), task))
    end
    if opts.on_result then
      opts.on_result(err, result)
    end
  end)
end

local function utf_len(client, text)
  if client and client.offset_encoding == "utf-8" then
    return #text
  end
  if has("0.11") then
    return vim.str_utfindex(text, client and client.offset_encoding or "utf-16")
  end
  local _, u16 = vim.str_utfindex(text)
  return u16
end

--- The LSP range of lines line1..line2 (1-based, inclusive) of `bufnr`.
function M.line_range(bufnr, line1, line2)
  local last = vim.api.nvim_buf_get_lines(bufnr, line2 - 1, line2, false)[1] or ""
  return {
    start = { line = line1 - 1, character = 0 },
    ["end"] = { line = line2 - 1, character = utf_len(M.client(bufnr), last) },
  }
end

function M.cancel(job_id)
  local client = M.client()
  job_id = job_id or state.running_job()
  if client == nil or job_id == nil then
    handlers.notify("lsp-agent: no running job", vim.log.levels.WARN)
    return
  end
  execute(client, "lspAgent.cancel", { jobId = job_id }, nil, function(err, result)
    if not err then
      handlers.notify("lsp-agent: cancel job " .. tostring(job_id) .. ": " .. vim.inspect(result))
    end
  end)
end

function M.approve(id)
  local client = M.client()
  if client then
    execute(client, "lspAgent.approve", { patchId = id })
  end
end

function M.reject(id, reason)
  local client = M.client()
  if client then
    execute(client, "lspAgent.reject", { patchId = id, reason = reason })
  end
end

function M.show_status()
  local client = M.client()
  if client == nil then
    handlers.notify("lsp-agent: not running (" .. M.status() .. ")")
    return
  end
  execute(client, "lspAgent.status", {}, nil, function(err, result)
    if not err then
      handlers.notify(M.status() .. "\n" .. vim.inspect(result))
    end
  end)
end

--- Accept the inline completion shown in `bufnr` (what the `completion.accept` key does).
function M.accept_completion(bufnr)
  if vim.lsp.inline_completion then
    return vim.lsp.inline_completion.get({ bufnr = bufnr })
  end
  return completion.accept(bufnr)
end

--- Statusline-friendly: "lsp-agent: idle", "lsp-agent: <progress> (n%)", "... waiting for approval".
function M.status()
  return state.status()
end

-- Client-side handler of the code actions' command: `Agent: ask…` prompts for the task; all
-- runs go through M.run so the job is tracked.
local function run_command(command, ctx)
  local argument = (command.arguments or {})[1] or {}
  local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
  local function go(task)
    if task == nil or task == "" then
      return
    end
    M.run(task, { bufnr = bufnr, uri = argument.uri, range = argument.range })
  end
  if argument.ask or argument.task == nil or argument.task == "" then
    vim.ui.input({ prompt = "lsp-agent task: " }, go)
  else
    go(argument.task)
  end
end

local function user_commands()
  vim.api.nvim_create_user_command("LspAgentRun", function(args)
    local bufnr = vim.api.nvim_get_current_buf()
    local range = nil
    if args.range and args.range > 0 then
      range = M.line_range(bufnr, args.line1, args.line2)
    end
    if args.args ~= "" then
      M.run(args.args, { bufnr = bufnr, range = range })
    else
      vim.ui.input({ prompt = "lsp-agent task: " }, function(task)
        if task and task ~= "" then
          M.run(task, { bufnr = bufnr, range = range })
        end
      end)
    end
  end, { nargs = "*", range = true, desc = "lsp-agent: run a task (on the selected lines)" })
  vim.api.nvim_create_user_command("LspAgentCancel", function(args)
    M.cancel(args.args ~= "" and tonumber(args.args) or nil)
  end, { nargs = "?", desc = "lsp-agent: cancel the running job" })
  vim.api.nvim_create_user_command("LspAgentStatus", function()
    M.show_status()
  end, { desc = "lsp-agent: show status" })
  vim.api.nvim_create_user_command("LspAgentApprove", function(args)
    M.approve(args.args)
  end, { nargs = 1, desc = "lsp-agent: approve a pending patch (a1 / p1)" })
  vim.api.nvim_create_user_command("LspAgentReject", function(args)
    M.reject(args.args)
  end, { nargs = 1, desc = "lsp-agent: reject a pending patch (a1 / p1)" })
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- lists are replaced, not merged
  end
  if opts and opts.root_markers then
    M.config.root_markers = opts.root_markers
  end
  handlers.opts.save_after_apply = M.config.save_after_apply
  handlers.opts.notify_progress = M.config.notify_progress
  handlers.opts.approval_timeout_ms = M.config.approval_timeout_ms
  completion.opts = vim.tbl_extend("force", completion.opts, M.config.completion or {})
  vim.lsp.commands["lspAgent.run"] = run_command
  user_commands()
  start()
end

return M
