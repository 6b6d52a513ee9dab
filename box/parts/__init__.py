"""The Box's parts, each written against the `Host` protocol (box.screens.protocol): the games'
lobby, seating, which card a tag is, the dice, the sound, the USB stick, the readers, notices,
the phone's commands and a game step told as events.

They may import the screens, the base, storage, games and the shared words; never the Box itself.
"""
