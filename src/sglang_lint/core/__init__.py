"""What every stage shares, importing nothing else of ours: the types a run reports and hands
between stages (``model``: Diagnostic, Finding, Fix, Span, SourceError, FileResult), the
version, the order of sglang releases, where the catalog and the caches are (``places``), the
one TOML schema reader every rule file and data table goes through (``rulefile``), LibCST
imported on first use (``lazycst``), the garbage collector's policy (``gcpolicy``) and how a
file met around a project is read (``files``: regular files only)."""
