"""The tools over the engine's API: the `lfdsl` command and its shared helpers, command-line values,
optional extras, agents, saved records and replays, scenarios, trace sinks and the language
server."""
