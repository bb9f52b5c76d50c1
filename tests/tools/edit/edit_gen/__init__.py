"""A generator of edits as models write them, with an oracle (see `calls`)."""
