"""The box's links to the outside: the control socket and its client, whom the socket trusts,
systemd's notify socket (`sdnotify`), `gravebox mqtt`, the process that follows the socket for the home,
and `gravebox hotspot` (`hotspot/`), the box's own Wi-Fi through NetworkManager.

They may import storage, the games and the shared words below them; nothing of the Box, its
parts, screens or base (the published state and events are all they know).
"""
