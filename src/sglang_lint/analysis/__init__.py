"""The LibCST engine's reading of one file. In: a file's bytes. Out: its tree (``source``),
the one walk in source order (``walk``) that records the bindings of every scope
(``bindings``), the conditions in force (``guards``) and the sites of catalog names
(``sites``, each a ``site.Site``), the resolver that says what a name calls and what value an
expression has (``resolve``), lists and dicts built in steps (``built``), and positions
(``positions``). A document edited in the editor is parsed again in part (``reparse``). What
a rule says of a site is the checks' business."""
