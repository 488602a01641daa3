"""Reading one of sglang's functions without running it: what the test before a ``raise``
demands of a parameter (:mod:`.guards`), the symbolic run of a function down to a raise
(:mod:`.path_run`), the path to a raise as one expression over the parameters (:mod:`.paths`,
:mod:`.expressions`), module constants (:mod:`.constants`), registry lookups (:mod:`.lookups`),
the state a method reads through ``self`` and the classes whose instances run it
(:mod:`.state`, :mod:`.hierarchy`), and symbolic values over a launch's fields (:mod:`.symbolic`).

Writes nothing into ``rules/`` itself: the conditions it computes reach the rule files and
tables through the groups above.
"""
