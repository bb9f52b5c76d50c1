-- The default keys: <leader>h… maps each command (run in normal and visual mode, leaving the
-- command line open), a key the user mapped before is left alone, `keymaps = false` maps none,
-- and <leader>hc opens the chat.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")

local function rhs(lhs, mode)
  return vim.fn.maparg(lhs, mode)
end

h.main(function()
  vim.keymap.set("n", "<leader>hl", "<cmd>echo 'mine'<CR>")
  h.setup({ keymaps = { restore = false } })
  local want = {
    { "<leader>hc", "n", "<Cmd>Harness9Chat<CR>" },
    { "<leader>hr", "n", ":Harness9Run " },
    { "<leader>hr", "x", ":Harness9Run " },
    { "<leader>hx", "n", "<Cmd>Harness9Cancel<CR>" },
    { "<leader>hs", "n", "<Cmd>Harness9Sessions<CR>" },
    { "<leader>hd", "n", "<Cmd>Harness9Diff<CR>" },
    { "<leader>hb", "n", ":Harness9Background " },
    { "<leader>hb", "x", ":Harness9Background " },
    { "<leader>ht", "n", "<Cmd>Harness9Tasks<CR>" },
    { "<leader>hu", "n", "" }, -- turned off
    { "<leader>hl", "n", "<Cmd>echo 'mine'<CR>" }, -- the user's own
  }
  for _, key in ipairs(want) do
    h.expect_equal(key[1] .. " in mode " .. key[2], key[3], rhs(key[1], key[2]))
  end
  -- setup() again with keymaps = false maps nothing more (the keys mapped before stay).
  h.setup({ keymaps = false })
  h.expect_equal("keys after keymaps = false", "<Cmd>Harness9Chat<CR>", rhs("<leader>hc", "n"))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<leader>hc", true, false, true), "x", false)
  h.expect_equal("the buffer after <leader>hc (the chat)", require("harness9.chat").find(),
    vim.api.nvim_get_current_buf())
end)
