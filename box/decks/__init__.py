"""The decks: the built-in deck files (CSV, and the Deck of Death board's TOML), their one codec
(`codec`) and the order they print and enrol in (`order`).

Below the games, which read their cards through it: it imports only the shared errors.
"""
