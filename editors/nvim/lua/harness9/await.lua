-- Answering a server request later: Neovim 0.10+ runs request handlers in a coroutine, which
-- yields until the answer is known; before that a handler must return its answer, so it waits
-- for it with vim.wait, which keeps processing events (other servers' messages, timers, UI).
local M = {}

--- Runs `start(finish, is_open)` and returns the value passed to `finish` (once; later calls
--- are ignored). `interrupted`: the value when the wait is interrupted (CTRL-C) before 0.10;
--- `failed(err)`: the value when `start` raises.
function M.await(start, interrupted, failed)
  local co, is_main = coroutine.running()
  local in_coroutine = co ~= nil and not is_main
  local done, value, yielded = false, nil, false
  local function finish(result)
    if done then
      return
    end
    done, value = true, result
    if in_coroutine then
      -- Scheduled, so the resume never comes before the yield with a synchronous answer.
      vim.schedule(function()
        if yielded then
          coroutine.resume(co)
        end
      end)
    end
  end
  local ok, err = pcall(start, finish, function()
    return not done
  end)
  if not ok then
    finish(failed and failed(err) or nil)
  end
  if in_coroutine then
    if not done then
      yielded = true
      coroutine.yield()
    end
  else
    while not done do
      local _, status = vim.wait(1000, function()
        return done
      end, 10)
      if status == -2 then -- interrupted
        finish(interrupted)
      end
    end
  end
  return value
end

return M
