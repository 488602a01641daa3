"""sglang launch commands in text that is not Python: shell scripts, Markdown code blocks,
YAML and Compose files, Dockerfiles. In: a file's text. Out: each launch command as words with
their places (``shell_split``: the shell splitter; ``yaml_commands``: a YAML file's command
lists; ``commands``: the launcher finder and a file's shell regions), the commands that run one after
them (``wrappers``: ``env``, ``nohup``, ``torchrun``), the environment a command runs with
(``shell_env``, ``yaml_env``), the launches bash arrays and split variables build
(``shell_arrays``), a framework's prefixed flags (``prefixes``: slime's
``--sglang-<flag>``), which files hold launches (``paths``) and the sglang release a
project's images and setup scripts name (``image_pins``). No rule is judged here."""
