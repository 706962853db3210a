"""The terminal table: people play a ruleset against bots (`lfdsl play`), save, resume and undo.

`session.Table` is the game and its record, with no screen; `app.PlayApp` is the Textual screen on
top of it. Both use the engine's public API only, and a person is shown their own view only.
"""
