" Highlighting of the harness9 background tasks' list (harness9://tasks).
if exists('b:current_syntax')
  finish
endif
syntax match harness9TasksKeys    /\%1l.*/
syntax match harness9TasksRunning /^● \S\+/
syntax match harness9TasksDone    /^✓ \S\+/
syntax match harness9TasksApplied /^⇲ \S\+/
syntax match harness9TasksFailed  /^[✗■!] \S\+/
syntax match harness9TasksAdded   / +\d\+ /ms=s+1,me=e-1
syntax match harness9TasksRemoved / −\d\+ /ms=s+1,me=e-1
syntax match harness9TasksFile    /^    \S.*/
syntax match harness9TasksNone    /^no background tasks.*/
highlight default link harness9TasksKeys    Comment
highlight default link harness9TasksRunning Special
highlight default link harness9TasksDone    String
highlight default link harness9TasksApplied Title
highlight default link harness9TasksFailed  ErrorMsg
highlight default link harness9TasksAdded   String
highlight default link harness9TasksRemoved WarningMsg
highlight default link harness9TasksFile    Directory
highlight default link harness9TasksNone    Comment
let b:current_syntax = 'harness9tasks'
