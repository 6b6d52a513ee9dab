"""The screens and their renderer: the one screen protocol (`protocol`), the menus, the game in
play, the tools, the self-test and enrolment, and `render`, a `View` in and a 128x64 image out.

They may import the base, storage, games and the shared words; no part, no port, no hardware.
"""
