"""`lfdsl studio`: the game in a browser (issue 31, point 4; docs/studio.md).

A local web app on Starlette: tables against bots, at one screen (hot seat) or with remote seats,
each seat a link of its own; the server keeps the game (the authority) and sends each browser its
player's board only, built from that player's view by the board model (interpreter/board) and
written as HTML with every text of the ruleset escaped. Tables are kept in SQLite and come back
after a restart; a dropped browser rejoins. A trace opens as a move list that steps through the
game, with the board as a player (or the referee) saw it then.

- `store.py`: the tables, live and in SQLite;
- `render.py`: a board as HTML, and the pages;
- `traces.py`: stepping through a trace;
- `server.py`: the routes and the websockets;
- `cli.py`: the command.
"""
