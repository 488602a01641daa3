"""The cheap stages, before LibCST: could any rule fire on this file? In: a file's bytes and
the rules' triggers (a compiled index or a rule table's). Out: the rules a text could fire
(``prefilter``: the callee names and the other words each trigger needs) and, for the files
that pass, whether any call is one the engine could judge (``calls``: the call-site screen,
over the file's ``ast`` as ``ast_scopes``, ``ast_receivers``, ``ast_guards`` and ``ast_flow``
read it; ``argv``: the screen of a list of launch flags). A check kind hands the screen its verdict
function through its trigger; the screen never imports the kinds."""
