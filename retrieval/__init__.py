"""The read path over the stores (``graph/``, ``vectors/``): paths, fusion, scoring, assembly."""
