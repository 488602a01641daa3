"""What the start-up run (derive/startup/run.py) knows of a launch beyond its fields: the
environment variables sglang reads and writes (how it parses each), and the model path,
taken to name a real model."""

from __future__ import annotations

import ast

from sglang_lint.derive.reading.symbolic import nodes
from sglang_lint.derive.source.tree import Module

ENVIRON_MODULE = "sglang.srt.environ"
ENV_CLASSES = {"EnvBool": "env_bool", "EnvBoolWithAlias": "env_bool", "EnvInt": "env_int",
               "EnvIntWithAlias": "env_int", "EnvFloat": "env_float", "EnvStr": "env_str",
               "EnvStrWithAlias": "env_str"}
ENV_HELPERS = {"get_bool_env_var": "env_truthy", "get_int_env_var": "env_int", "get_float_env_var": "env_float",
               "get_str_env_var": "env_str"}
ALL_VARIABLES = object()  # a write of variables not known one by one (os.environ.update(...))


def variable_read(node: ast.Call, kinds: dict[str, str]) -> tuple[str, str | None] | None:
    """(variable, how sglang parses it) a call reads: ``envs.X.get()``, ``get_bool_env_var("X")``,
    ``os.environ.get("X")``, ``os.getenv("X")``; None for any other call."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("get", "value") and not node.args \
            and isinstance(func.value, ast.Attribute) and isinstance(func.value.value, ast.Name) \
            and func.value.value.id == "envs":
        return func.value.attr, kinds.get(func.value.attr)
    text = ast.unparse(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    name = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) \
        and isinstance(node.args[0].value, str) else None
    if text in ENV_HELPERS and name is not None:
        return name, ENV_HELPERS[text]
    if text in ("os.environ.get", "os.getenv") and name is not None:
        return name, "env_str"
    return None


def variable_write(node: ast.Call):
    """(variable, value node) a call sets (``envs.X.set(v)``), ALL_VARIABLES where it may set
    any (``os.environ.update(...)``), None where it sets none."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "set" and isinstance(func.value, ast.Attribute) \
            and isinstance(func.value.value, ast.Name) and func.value.value.id == "envs" and len(node.args) == 1:
        return func.value.attr, node.args[0]
    if isinstance(func, ast.Attribute) and ast.unparse(func) in (
            "os.environ.update", "os.environ.setdefault", "os.putenv", "os.unsetenv"):
        return ALL_VARIABLES
    return None


def environment_kinds(modules: dict[str, Module]) -> dict[str, str]:
    """sglang's declared environment variables (``class Envs: X = EnvBool(...)``) -> how their
    value is parsed (env_bool, env_int, env_float, env_str)."""
    module = modules.get(ENVIRON_MODULE)
    kinds: dict[str, str] = {}
    if module is None:
        return kinds
    for cls in (n for n in module.tree.body if isinstance(n, ast.ClassDef)):
        for item in cls.body:
            if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name) \
                    and isinstance(item.value, ast.Call) and isinstance(item.value.func, ast.Name) \
                    and item.value.func.id in ENV_CLASSES:
                kinds[item.targets[0].id] = ENV_CLASSES[item.value.func.id]
    return kinds


def dummy_model_test(condition: ast.expr) -> bool:
    """The return a launch with ``--model-path dummy`` (or ``none``) takes before the checks
    that need a model: read as not taken (the check skips a launch that names such a model)."""
    return dummy_assumption(condition) is not None


def dummy_assumption(test: ast.expr) -> bool | None:
    """The value of a test of the model path against ``dummy`` for a real model (``x in
    ["none", "dummy"]``: False); None where the test is not one."""
    node = test
    negated = False
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node, negated = node.operand, not negated
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    # (the model path as the launch gives it, or as a setting the launch may make rewrote it)
    names = {n.id for n in nodes(node.left) if isinstance(n, ast.Name)}
    if "model_path" not in names:
        return None
    strings = {n.value for n in nodes(node.comparators[0]) if isinstance(n, ast.Constant)}
    if "dummy" not in strings:
        return None
    op = node.ops[0]
    if isinstance(op, (ast.In, ast.Eq)):
        return negated
    if isinstance(op, (ast.NotIn, ast.NotEq)):
        return not negated
    return None
