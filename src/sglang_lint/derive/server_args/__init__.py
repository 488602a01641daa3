"""The server's arguments in one release: every ``ServerArgs`` field with its flags, type,
choices and default (:mod:`.fields`, :mod:`.field_types`), the choices read from the
expressions sglang builds them from (:mod:`.choices`), the deprecated flags and values
(:mod:`.deprecations`), the argparse parsers a module builds (:mod:`.parsers`), the diffusion
server's keywords (:mod:`.diffusion`), what a call writes into the arguments it is handed
(:mod:`.call_effects`), and the classes and functions that build arguments from their own
keywords (:mod:`.keyword_launchers`).

Writes ``rules/derived/server_args.toml`` (merged over releases by :mod:`..releases`).
"""
