"""The engine's core: what runs a compiled program — the primitives generated code raises and charges,
places and who sees them, a game's state, the run and its services, views and positions, and the
instruction and decision records (ir.py) that the compiler writes and the run reads. It imports
nothing of the compiler, the tools or the rooms; `interpreter.engine` is its API."""
