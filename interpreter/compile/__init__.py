"""The compiler: a checked ruleset to a `Program` (program.py) — parameters, the instruction builder,
the back end that turns instruction records into Python, and the library of built-ins that generated
code calls. It builds on the engine's core (`interpreter.core`: primitives, places, instruction
records) and on nothing above it.

The `Program` lives here rather than in core/: making one is compiling, and the run is handed one as
a value, so nothing in core/ imports this package. The instruction records (core/ir.py) live below,
in core/, since the run reads them too; the compiler writes them from above."""
