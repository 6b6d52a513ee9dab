"""The one way the box reads a file from outside and writes one of its own: bounded reads that
refuse links, folders and FIFOs (`bounded`), atomic writes, and text and TOML judged before use (`text`);
and the dataclasses' methods kept as byte code between starts (`classcode`).

Below everything that reads a file (the decks, the games' boards, storage): it imports only the errors.
"""
