-- The Neovim tests' reporting, shared by e2e.lua and completion.lua: "ok"/"not ok" lines
-- on stdout, then "N passed, N failed", and Neovim's exit status 1 on a failure.
local M = { passed = 0, failed = 0 }

function M.out(line)
  io.stdout:write(line .. "\n")
  io.stdout:flush()
end

function M.check(name, cond, detail)
  if cond then
    M.passed = M.passed + 1
    M.out("ok - " .. name)
  else
    M.failed = M.failed + 1
    M.out("not ok - " .. name)
    if detail ~= nil then
      M.out("    # " .. (type(detail) == "string" and detail or vim.inspect(detail)):gsub("\n", "\n    # "))
    end
  end
  return cond
end

function M.finish()
  M.out(("%d passed, %d failed"):format(M.passed, M.failed))
  vim.cmd(M.failed > 0 and "cquit 1" or "qall!")
end

return M
