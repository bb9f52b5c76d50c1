--- A text's lines, split at each "\n" (empty lines kept, as vim.split with plain = true gives
--- them), without vim.split: Neovim 0.7's vim.validate inside it was seen to fail at random
--- ("opt[1.3e-322]: expected table, got nil") when called from a scheduled callback.
local M = {}

function M.split(text)
  local out, start = {}, 1
  while true do
    local stop = text:find("\n", start, true)
    if not stop then
      table.insert(out, text:sub(start))
      return out
    end
    table.insert(out, text:sub(start, stop - 1))
    start = stop + 1
  end
end

return M
