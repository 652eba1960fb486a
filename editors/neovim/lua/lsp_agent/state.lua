-- Job and progress state of lsp-agent, shared by the handlers, the commands and status().
local M = {
  jobs = {}, -- jobId -> { token = ..., task = ..., done = bool }
  tokens = {}, -- progress token (string) -> jobId
  last_job = nil, -- the most recent jobId started from this editor
  progress = nil, -- { title, message, percentage } of the running job
  waiting = false, -- an approval question is open
  last_result = nil, -- text of the last finished job's end message
}

local function key(token)
  return tostring(token)
end

function M.job_started(job_id, token, task)
  M.jobs[job_id] = { token = token, task = task, done = false }
  if token ~= nil then
    M.tokens[key(token)] = job_id
  end
  M.last_job = job_id
  M.progress = { title = "lsp-agent", message = "starting: " .. (task or ""), percentage = nil }
end

function M.running_job()
  local id = M.last_job
  if id ~= nil and M.jobs[id] and not M.jobs[id].done then
    return id
  end
  for job_id, job in pairs(M.jobs) do
    if not job.done then
      return job_id
    end
  end
  return nil
end

function M.job_for_token(token)
  return M.tokens[key(token)]
end

function M.job_done(job_id, message)
  if job_id ~= nil and M.jobs[job_id] then
    M.jobs[job_id].done = true
  end
  M.last_result = message
  if M.running_job() == nil then
    M.progress = nil
    M.waiting = false
  end
end

--- A short statusline string: "" when the server is not attached and idle.
function M.status()
  if M.waiting then
    return "lsp-agent: waiting for approval"
  end
  local p = M.progress
  if p ~= nil then
    local text = "lsp-agent: " .. (p.message or p.title or "running")
    if p.percentage then
      text = text .. string.format(" (%d%%)", p.percentage)
    end
    return text
  end
  return "lsp-agent: idle"
end

return M
