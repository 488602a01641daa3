"""sglang's source as the deriver reads it, never importing it: which releases exist and each
one's tree, fetched through pip once into the cache (:mod:`.wheels`), where a thing is over the
releases (:mod:`.presence`), a tree's modules parsed with their imports and constants
(:mod:`.tree`), the names its packages re-export (:mod:`.exports`), the exception a ``raise``
throws (:mod:`.exceptions`), and what every generated file shares (:mod:`.generated`).

Writes nothing into ``rules/`` itself; every group above reads it.
"""
