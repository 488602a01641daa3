"""sglang's public Python API and its sampling parameters: what each public name takes in one
release (:mod:`.surface`), the signatures over every release (:mod:`.table`), and the checks
``SamplingParams`` runs on a request's parameters over every release (:mod:`.sampling`).

Writes ``rules/derived/api.toml`` and ``rules/derived/sampling.toml``.
"""
