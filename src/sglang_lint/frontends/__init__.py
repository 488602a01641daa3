"""What users run, over the engine. In: a command line, a flake8 run, an editor's LSP
messages. Out: findings in the format asked for. ``front`` is the ``sglang-lint`` entry point
(the quick answer from the compiled index, else ``cli``), ``flake8_plugin`` the flake8 adapter,
``server`` the language server; beside them the configuration (``config``), the result caches
(``cache``, ``plugin_cache``), the output formats (``output``), the rule docs (``docs``), many
files over worker processes (``runner``), the project pass over launch helpers
(``project``), the subcommands (``subcommands``) and the compiled index as an entry point
reads it (``indexes``). Only here may an import stand inside a function: the entry points
decide what a run loads."""
