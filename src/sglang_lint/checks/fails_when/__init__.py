"""The ``fails-when`` check kind and its language: a rule's ``when`` is a Python expression
over a function's parameters, true exactly when a call reaches one of sglang's raises. In: a
site and a rule's check. Out: a finding where the expression is certainly true of what the call
passes. ``check`` is the kind; ``language`` parses and evaluates ``when`` three-valued over the
``values`` a call gives (``makers``: what a maker call gives; ``members``: what a value's
attributes and methods give; ``instances``: ``isinstance``; ``conditions``: which tests are one);
``grammar`` is what a ``when`` may be; ``screen_values`` gives the call-site screen every value
an argument could have, read on ``ast``."""
