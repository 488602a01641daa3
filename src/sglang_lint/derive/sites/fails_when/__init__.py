"""fails-when rules from sglang's tree. In: the tree's modules and each raise's path as one
expression (derive/reading/paths.py). Out: rule files. ``rules`` picks the raise sites that get a rule
and the callable a user calls to reach each; ``examples`` finds the calls that show it (a local
search: ``solve``), over the record classes and enums it reads (``records``); ``files`` writes
the rule file."""
