"""`lfdsl studio`: the studio's command. `register` adds it to the command line; Starlette and
uvicorn are imported only when it runs."""
from __future__ import annotations

import os

from ..tools.commands import EXIT_OK, UsageError

DEFAULT_PORT = 8765


def register(sub) -> None:
    st = sub.add_parser("studio", help="play and step through games in the browser (docs/studio.md)")
    st.add_argument("--root", default=".", help="the folder whose rulesets and traces it serves (default: here)")
    st.add_argument("--db", default=None, help="the SQLite file keeping the tables (default: ROOT/.lfdsl/studio.sqlite)")
    st.add_argument("--host", default="127.0.0.1",
                    help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 lets others join)")
    st.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the port (default {DEFAULT_PORT})")
    st.set_defaults(func=cmd_studio, extra="studio")


def cmd_studio(args) -> int:
    import uvicorn
    root = os.path.realpath(args.root)
    if not os.path.isdir(root):
        raise UsageError(f"--root {args.root} is not a folder")
    if not 0 < args.port < 65536:
        raise UsageError(f"--port takes a port from 1 to 65535, not {args.port}")
    db = args.db or os.path.join(root, ".lfdsl", "studio.sqlite")
    os.makedirs(os.path.dirname(os.path.abspath(db)), exist_ok=True)
    import sqlite3

    from .server import make_app
    from .store import Store
    try:
        store = Store(root, db)
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"--db {db}: not a database the studio can use ({exc})") from None
    app = make_app(store)
    print(f"lfdsl studio: http://{args.host}:{args.port}/ (serving {root}; Ctrl-C stops it)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return EXIT_OK
