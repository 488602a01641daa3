"""How users launch sglang: the functions and classes of sglang that take launch flags and hand
them to the server (:mod:`.launchers`, :mod:`.class_launchers`), the ``sglang`` command's launch
subcommands (:mod:`.subcommands`, over releases :mod:`.serve`), and the modules run with
``python -m`` (:mod:`.scripts`, over releases :mod:`.scripts_table`).

Writes ``rules/derived/launchers.toml``, ``rules/derived/serve.toml`` and
``rules/derived/scripts.toml``.
"""
