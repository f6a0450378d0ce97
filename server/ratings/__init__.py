"""Published ratings: a Plackett–Luce fit of every finishing order at once (pure: no I/O).

:mod:`server.ratings.data` packs results into arrays, :mod:`server.ratings.fit` fits the
strengths and seat advantages by Newton's method, :mod:`server.ratings.intervals` gives
cluster-robust (sandwich) and cluster-bootstrap intervals and the published table.
"""
