"""The designer's lab: many games played with bots, and what they show (`lfdsl simulate`).

`games` plays them, on worker processes if asked, and keeps one record per game; `figures` turns
the records into the figures a designer reads, with their intervals from statsmodels; `show` draws
the progress bar and the tables with Rich. The lab stands above the engine and the bots: it imports
them, and nothing below imports it. It needs the `lab` extra (`pip install 'lfdsl[lab]'`).
"""
