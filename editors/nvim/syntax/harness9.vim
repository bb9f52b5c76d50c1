" Highlighting of the harness9 run buffer (harness9://run).
if exists('b:current_syntax')
  finish
endif
syntax match harness9Prompt  /^» .*/
syntax match harness9Turn    /^── turn \d\+/
syntax match harness9Running /^  … .*/
syntax match harness9Ok      /^  ✓ [^:]*:/
syntax match harness9Failed  /^  ✗ .*/
syntax match harness9Output  /^    │ .*/
syntax match harness9Thought /^  \~ .*/
syntax match harness9Added    /^    + .*/
syntax match harness9Modified /^    \~ .*/
syntax match harness9Deleted  /^    - .*/
syntax match harness9Shared   /^    (may include changes .*/
syntax match harness9Restored /^↺ .*/
syntax match harness9DiffHunk   /^    ┆ \zs@@.*/
syntax match harness9DiffAdd    /^    ┆ \zs+.*/
syntax match harness9DiffDelete /^    ┆ \zs-.*/
syntax match harness9DiffMore   /^    ┆ \zs… .*/
syntax match harness9Attached /^  @ .*/
" The agent's markdown: headings (their marks concealed) outside code blocks, tables' rules.
" Whether a line is in a code block depends on the lines above: look far enough back.
syntax sync minlines=300
syntax region harness9Code start=/^\s*```/ end=/^\s*```/ end=/^\ze\%(── turn \|■ \|  [✓✗…?] \)/
syntax match harness9Heading /^ \{0,3}#\{1,6}\s.*/ contains=harness9HeadingMark
syntax match harness9HeadingMark /^ \{0,3}#\{1,6}\s\+/ contained conceal
syntax match harness9TableRule /^─[─┼]*$/
syntax match harness9Done    /^■ \(completed\|max_turns\).*/
syntax match harness9Stopped /^■ \(cancelled\|error\|cancelling\).*/
highlight default link harness9Prompt  Title
highlight default link harness9Turn    Comment
highlight default link harness9Running WarningMsg
highlight default link harness9Ok      String
highlight default link harness9Failed  ErrorMsg
highlight default link harness9Output  Comment
highlight default link harness9Thought Comment
highlight default link harness9Added    String
highlight default link harness9Modified Type
highlight default link harness9Deleted  WarningMsg
highlight default link harness9Shared   Comment
highlight default link harness9Restored Title
highlight default link harness9DiffHunk   Comment
highlight default link harness9DiffAdd    DiffAdd
highlight default link harness9DiffDelete DiffDelete
highlight default link harness9DiffMore   Comment
highlight default link harness9Attached Comment
highlight default link harness9Heading Title
highlight default link harness9HeadingMark Comment
highlight default link harness9TableRule Comment
highlight default link harness9Done    Statement
highlight default link harness9Stopped ErrorMsg
let b:current_syntax = 'harness9'
