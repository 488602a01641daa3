"""Python source read as bytes and text, before anything is parsed. In: a file's bytes. Out:
its identifiers (``words``), where a call's parentheses close and a logical line ends
(``scan``), what its statements bind a name to (``bindings``), the names sglang's modules go by
(``pynames``: a file's module, relative imports, qualified names) and its ``# noqa`` comments
(``noqa``). The screen and the engine read a file through these alike."""
