"""The catalog as data. In: the rule files (``rules/``, TOML) and a project's files. Out: the
rules as records (``rules``: Rule, Check, Target, validated with the file and field named),
the compiled index a run starts from (``index``: the names the rules trigger on, each rule's
file, the releases; ``rule_data``: each rule file's table kept beside it) and the release(s) a
file is judged against (``target``: pins, images, configuration), and the frameworks of the
prefixed server flags a file's project is (``frameworks``). The check kinds are not
loaded here: a rule's check is parsed by the kind the caller passes in."""
