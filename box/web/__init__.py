"""The phone page (`gravebox web`): a second process beside the box; see docs/web.md."""
