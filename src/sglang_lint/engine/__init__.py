"""One file through the stages. In: a file and the rules to run. Out: its diagnostics and
fixes. The rule table loads the catalog with the check kinds and compiles it for dispatch
(``ruletable``; ``index_build`` writes the compiled index from it); ``dispatch`` hands each
site to the checks filed under its callee, ``reach`` follows a value through the functions
that hand it on, ``diagnostics`` turns findings into positioned diagnostics, ``launch_files``
reads launch commands outside Python, ``lint`` runs the stages in order (prefilter, screen,
parse, walk, dispatch) and ``fixes`` applies the safe ones."""
