"""The run core: a prompt becomes an engine run on a session (its tools, its engine, its
turn among the session's runs), and the session and checkpoint operations that must wait
for runs."""
