"""`edit_file`'s matcher: the ladder of levels, its refusals, and the diffs of a change."""
