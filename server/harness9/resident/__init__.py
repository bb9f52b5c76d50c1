"""A resident process that has the heavy libraries imported and forks a ready daemon for each
start of `harness9 serve`, `harness9 acp` or `harness9 exec`.

    editor ──pipes──▶ harness9 (this start: hands its stdin, stdout, stderr, argv, environment
                      │          and working folder over a unix socket, then stands for the daemon)
                      ▼
    resident ──fork──▶ supervisor ──fork──▶ daemon: the command, on those file descriptors, in
                                            that environment

`fork_server` is the resident's loop, `becoming` turns a forked process into the command,
`handover` is the starting side, and `starter` decides when to use one, where its socket is and
how it is started. Only the standard library is imported by these modules.
"""
