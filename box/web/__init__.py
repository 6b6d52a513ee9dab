"""The phone page (`gravebox web`): a second process beside the box; see docs/web.md.

It reads the published state and events through the control socket (box.links), the journal
read-only and the read models (box.storage, box.base.session); it never imports the Box.
"""
