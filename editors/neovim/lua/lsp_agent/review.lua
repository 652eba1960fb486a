-- Hunk review: a patch whose change annotations ask for confirmation (one per hunk, as the
-- server sends them to VS Code's refactor preview) is shown hunk by hunk in a floating diff.
-- Keys: a accept, r reject, A accept this and the rest, R (or q, <Esc>) reject this and the rest.
-- Only the accepted hunks are applied; the server sees the result (didChange) and tells the
-- agent which hunks the user kept. A created, deleted or renamed file is one unit.
local M = {}

M.current = nil -- { buf, win, index, total, label, lines } of the hunk on screen (for tests, UIs)

local function diff(old, new)
  local text_diff = (vim.text and vim.text.diff) or vim.diff
  return text_diff(old, new, { result_type = "unified", ctxlen = 3 })
end

local function joined(lines)
  return #lines > 0 and (table.concat(lines, "\n") .. "\n") or ""
end

local function file_lines(uri)
  local bufnr = vim.uri_to_bufnr(uri)
  if vim.api.nvim_buf_is_loaded(bufnr) then
    return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  end
  local ok, lines = pcall(vim.fn.readfile, vim.uri_to_fname(uri))
  return ok and lines or {}
end

-- The lines of `uri` with `edits` applied, through Neovim's own edit code (positions in the
-- client's encoding) on a scratch buffer.
local function edited_lines(lines, edits, encoding)
  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  vim.lsp.util.apply_text_edits(edits, scratch, encoding)
  local out = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
  vim.api.nvim_buf_delete(scratch, { force = true })
  return out
end

local function strip(edit)
  local copy = vim.deepcopy(edit)
  copy.annotationId = nil
  return copy
end

--- The units to decide on, in the order of the edit: { key, label, uri, op, edits }.
function M.units(edit)
  local annotations = edit.changeAnnotations or {}
  local units, by_key, file_units = {}, {}, {}
  local function unit(key, uri)
    if by_key[key] == nil then
      local annotation = annotations[key] or {}
      by_key[key] = { key = key, label = annotation.label or key, uri = uri, edits = {} }
      units[#units + 1] = by_key[key]
    end
    return by_key[key]
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind then -- create / rename / delete: the file as one unit
      local target = change.newUri or change.uri
      local u = unit(change.annotationId or ("file:" .. target), target)
      u.op = strip(change)
      file_units[target] = u
    end
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if not change.kind then
      local uri = change.textDocument.uri
      for _, text_edit in ipairs(change.edits or {}) do
        local u = file_units[uri] or unit(text_edit.annotationId or ("text:" .. uri), uri)
        u.version = change.textDocument.version
        u.edits[#u.edits + 1] = strip(text_edit)
      end
    end
  end
  return units
end

--- The diff lines a unit is shown with.
function M.describe(u, encoding)
  local name = vim.fn.fnamemodify(vim.uri_to_fname(u.uri), ":~:.")
  local before = (u.op and u.op.kind == "create") and {} or file_lines(u.op and u.op.oldUri or u.uri)
  local after = (u.op and u.op.kind == "delete") and {} or edited_lines(before, u.edits, encoding)
  local head = { u.label }
  if u.op and u.op.kind == "rename" then
    head[#head + 1] = "rename " .. vim.fn.fnamemodify(vim.uri_to_fname(u.op.oldUri), ":~:.") .. " -> " .. name
  elseif u.op then
    head[#head + 1] = u.op.kind .. " " .. name
  end
  local body = vim.split(diff(joined(before), joined(after)), "\n", { plain = true })
  if body[#body] == "" then
    body[#body] = nil
  end
  return vim.list_extend(head, body)
end

local KEYS = "[a]ccept  [r]eject  [A]ccept all  [R]eject all"

local function show(lines, title)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = "diff"
  vim.bo[buf].modifiable = false
  local width = #KEYS
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width + 2, math.max(20, vim.o.columns - 4))
  local height = math.min(#lines, math.max(3, vim.o.lines - 6))
  local win = vim.api.nvim_open_win(buf, false, {
    relative = "editor",
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
  })
  vim.wo[win].wrap = false
  pcall(vim.api.nvim_buf_set_name, buf, "lsp-agent://" .. title)
  return buf, win
end

local ANSWERS = { a = "accept", r = "reject", A = "accept_rest", R = "reject_rest", q = "reject_rest" }
ANSWERS["\27"] = "reject_rest"

local function ask()
  while true do
    local ok, key = pcall(vim.fn.getcharstr)
    if not ok then -- <C-c>
      return "reject_rest"
    end
    if ANSWERS[key] then
      return ANSWERS[key]
    end
  end
end

--- Ask about every unit; returns the accepted units.
function M.choose(units, label, encoding)
  local accepted, rest = {}, nil
  for index, u in ipairs(units) do
    local answer = rest
    if answer == nil then
      local lines = M.describe(u, encoding)
      table.insert(lines, 1, string.format("%s — hunk %d/%d", label or "lsp-agent", index, #units))
      lines[#lines + 1] = KEYS
      local buf, win = show(lines, string.format("hunk-%d", index))
      M.current = { buf = buf, win = win, index = index, total = #units, label = u.label, lines = lines }
      vim.cmd("redraw")
      if vim.fn.exists("#User#LspAgentReviewHunk") == 1 then
        vim.cmd("doautocmd <nomodeline> User LspAgentReviewHunk")
      end
      answer = ask()
      pcall(vim.api.nvim_win_close, win, true)
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
      M.current = nil
      if answer == "accept_rest" or answer == "reject_rest" then
        rest = answer
      end
    end
    if answer == "accept" or answer == "accept_rest" then
      accepted[#accepted + 1] = u
    end
  end
  return accepted
end

--- The workspace edit holding only `accepted` (no annotations: nothing left to confirm).
function M.filtered(accepted)
  local changes, by_uri = {}, {}
  for _, u in ipairs(accepted) do
    if u.op then
      changes[#changes + 1] = u.op
    end
    if #u.edits > 0 then
      local doc = by_uri[u.uri]
      if doc == nil then
        doc = { textDocument = { uri = u.uri, version = u.version or vim.NIL }, edits = {} }
        by_uri[u.uri] = doc
        changes[#changes + 1] = doc
      end
      vim.list_extend(doc.edits, u.edits)
    end
  end
  return { documentChanges = changes }
end

--- True when `edit` asks for confirmation of its changes (one annotation per hunk).
function M.wanted(edit)
  for _, annotation in pairs(edit.changeAnnotations or {}) do
    if annotation.needsConfirmation == true then
      return true
    end
  end
  return false
end

return M
