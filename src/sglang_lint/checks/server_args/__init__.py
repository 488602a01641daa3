"""The ``server-args`` check kind: a launch, whether ``sgl.Engine(...)``/``ServerArgs(...)``
keywords or a command line, judged against the target release's server arguments. In: a site
(a call, a command in a string or a file) and the derived tables. Out: SGL006-SGL012 and SGL015
findings. ``check`` is the kind (its triggers, and a site dispatched to the aspect that judges
it), ``params`` what a rule of it says; ``table`` reads the server-argument table; ``flags`` reads
a launch's words into ``flag_use`` records (argv lists, command strings, shell launches),
``site_flags`` the launches at a site; ``values`` judges one value against its field,
``keywords`` a call's keywords, ``flag_verdicts`` a launch's flags (``flag_words`` the words a
flag's converter refuses); ``scripts`` judges ``python -m`` of sglang's own scripts;
``environment`` the variables a launch runs with; ``startup`` the start-up validation (SGL012),
``startup_table`` the table of its checks;
``relations`` the arguments that contradict each other; ``advice`` what a finding on a flag says
to do; ``screens`` the call-site screen of each aspect."""
