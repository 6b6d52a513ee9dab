"""The `gravebox selftest` and `gravebox enroll` commands: a tool screen as the root of the box's one loop."""
