"""fails-when rules (issue 17): the path to a raise as one expression over the parameters.

* the evaluator (checks/fails_when/language.py): three-valued, never raises, and monotone: learning a value
  never turns a certain True into False or back (the call-site screen relies on it);
* the deriver (derive/reading/paths.py, derive/sites/fails_when/rules.py) on the stand-in tree: the expression each
  raise gets, and the reason each shape it cannot write is skipped;
* the written rules through the engine and a real flake8 on user code that calls them.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from conftest import ROOT, expected_findings, findings_of, run_flake8
from sglang_lint import lint
from sglang_lint.checks.fails_when.language import (
    UNKNOWN, Bound, Device, Record, Tensor, WhenError, dtype_ref, holds, parse_when,
)
from sglang_lint.checks.fails_when.check import RecordClass
from sglang_lint.derive.sites.raise_sites import derive_sites
from sglang_lint.derive.sites.writing import write_catalog
from sglang_lint.derive.sites.fails_when.examples import find_examples
from sglang_lint.derive.sites.fails_when.records import record_class
from sglang_lint.engine.ruletable import RuleSet, load_rules
from sglang_lint.text.pynames import Ref

TREE = Path(__file__).resolve().parent / "derive_tree"
FIXTURE = ROOT / "tests" / "fixtures" / "families" / "fails_when.py"
F32 = dtype_ref("float32")


def tensor(*shape, dtype="float32", device="cpu"):
    return Tensor(shape, dtype_ref(dtype), Device(device))


def mlx(*shape_and_dtype):
    *shape, dtype = shape_and_dtype
    return Tensor(tuple(shape), Ref(f"mlx.core.{dtype}"), Device(UNKNOWN, UNKNOWN), False, None, "mlx")


NAMESPACE_8 = Record("types.SimpleNamespace", (("window", 8),))


# --- the evaluator ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, env, expected",
    [
        ("not 0 <= start < end", {"start": 3, "end": 3}, True),
        ("not 0 <= start < end", {"start": 0, "end": 3}, False),
        ("not 0 <= start < end", {"start": UNKNOWN, "end": 3}, UNKNOWN),
        ("(a is None) != (b is None)", {"a": tensor(4), "b": None}, True),
        ("(a is None) != (b is None)", {"a": None, "b": None}, False),
        # short-circuits decide over unknowns, as Python does
        ("a is not None and a < 0", {"a": None}, False),
        ("mode == 'x' or n < 0", {"mode": "x", "n": UNKNOWN}, True),
        # ``x or "auto"`` with x unknown is true, but its value is not known
        ("(x or 'auto') != 'auto'", {"x": UNKNOWN}, UNKNOWN),
        ("(x or 'auto') is None", {"x": UNKNOWN}, False),
        # tensors made at the call: shape, ndim, dtype, device, strides
        ("x.dim() != 5", {"x": tensor(1, 16, 63, 64)}, True),
        ("x.shape[3] % p != 0", {"x": tensor(1, 16, 1, 63, 64), "p": 2}, True),
        ("x.shape[-1] % 32 != 0", {"x": tensor(8, 64)}, False),
        ("x.dtype != torch.bfloat16", {"x": tensor(2, dtype="float")}, True),
        ("x.dtype != torch.float32", {"x": tensor(2, dtype="float")}, False),
        ("x.stride() != (x.shape[1], 1)", {"x": tensor(4, 8)}, False),
        ("not x.is_cuda", {"x": tensor(4, device="cuda")}, False),
        ("x.numel() > 10", {"x": Tensor(UNKNOWN, F32, Device("cpu"))}, UNKNOWN),
        # two devices of one accelerator type may differ by index: unknown; the CPU is one
        ("a.device != b.device", {"a": tensor(1, device="cuda"), "b": tensor(1, device="cuda")}, UNKNOWN),
        ("a.device != b.device", {"a": tensor(1, device="cuda"), "b": tensor(1)}, True),
        ("a.device != b.device", {"a": tensor(1), "b": tensor(1)}, False),
        # dicts, kwargs, containers, builtins
        # getattr with a default: a namespace made at the call has no attribute but its keywords;
        # an instance of a record class may have methods and class attributes besides its fields
        ("getattr(a, 'api', None) == 'x'", {"a": Record("types.SimpleNamespace", (("api", "x"),))}, True),
        ("getattr(a, 'api', None) == 'x'", {"a": NAMESPACE_8}, False),
        ("getattr(a, 'window', 0) > 4", {"a": NAMESPACE_8}, True),
        ("getattr(a, 'api', None) is None", {"a": Record("sglang.x.Config", (("window", 8),))}, UNKNOWN),
        ("getattr(a, 'window', None) > 4", {"a": Record("sglang.x.Config", (("window", 8),))}, True),
        ("getattr(a, 'api', None) is None", {"a": UNKNOWN}, UNKNOWN),
        ("cfg.get('norm', 'rms') != 'rms'", {"cfg": {"norm": "layer"}}, True),
        ("cfg.get('norm', 'rms') != 'rms'", {"cfg": {}}, False),
        ("bool(kwargs)", {"kwargs": {"extra": 1}}, True),
        ("len(xs) != n + 1", {"xs": [0, 5], "n": 2}, True),
        ("isinstance(v, bool) or not isinstance(v, int)", {"v": "3"}, True),
        ("isinstance(v, bool) or not isinstance(v, int)", {"v": 3}, False),
        # a union of classes (Python 3.10's spelling of a tuple of them), nested in a tuple too
        ("isinstance(v, list | tuple) and len(v) != 3", {"v": (2, 2)}, True),
        ("isinstance(v, list | tuple) and len(v) != 3", {"v": "ab"}, False),
        ("not isinstance(v, (int, str | list))", {"v": 1.5}, True),
        ("name not in {'a': 1, 'b': 2}", {"name": "c"}, True),
        # what Python would refuse is unknown, never an error
        ("x < 1", {"x": "a"}, UNKNOWN),
        ("n % d", {"n": 1, "d": 0}, UNKNOWN),
        ("x.nonsense()", {"x": "a"}, UNKNOWN),
        # enum members: equal by name only when torch's dtypes (others may be aliases)
        ("m == other", {"m": dtype_ref("half"), "other": dtype_ref("float16")}, True),
        # a tensor made by torch's functions: a plain, dense torch.Tensor; requires_grad as made
        ("type(x) is not torch.Tensor or x.layout != torch.strided or x.requires_grad",
         {"x": Tensor((2,), F32, Device("cpu"), True)}, True),
        ("type(x) is not torch.Tensor or x.layout != torch.strided or x.requires_grad", {"x": tensor(2)}, False),
        # what the install decides is unknown (torch.version.hip is None on a CUDA build)
        ("x.is_cuda and torch.version.hip is not None", {"x": tensor(2, device="cuda")}, UNKNOWN),
        # a tensor made on "cuda" is on the current device: its index is not known
        ("x.device.index != 0", {"x": Tensor((2,), F32, Device("cuda", UNKNOWN))}, UNKNOWN),
        # a conditional whose branches agree is known whatever its test
        ("not (False if flag else n > 5)", {"flag": UNKNOWN, "n": 1}, True),
        ("not (False if flag else n > 5)", {"flag": UNKNOWN, "n": 9}, UNKNOWN),
        # by cases: a test not known is taken true, then false; the same truth both ways is certain
        ("not (x * 0.3 if flag else x) >= 0", {"flag": UNKNOWN, "x": -0.5}, True),
        ("not (x * 0.3 if flag else x) >= 0", {"flag": UNKNOWN, "x": 0.5}, False),
        # one test written twice has one truth (flag true: 1 > 1; false: 0 > 1); each ``unknown``
        # is a value of its own
        ("(x if flag else 0) > 1 and (1 if flag else x) > 1", {"flag": UNKNOWN, "x": 5}, False),
        ("(x if unknown else 0) > 1 and (1 if unknown else x) > 1", {"unknown": UNKNOWN, "x": 5}, UNKNOWN),
        ("(1 if flag else 0) == (1 if flag else 0)", {"flag": UNKNOWN}, True),
        ("(1 if unknown else 0) == (1 if unknown else 0)", {"unknown": UNKNOWN}, UNKNOWN),
        # a query (``unknown_`` and what sglang asks the machine or the model: one answer through
        # a start-up) is one value wherever read, in a conditional's test or an operand
        ("not (unknown_hip and not unknown_hip)", {"unknown_hip": UNKNOWN}, True),
        ("not (unknown and not unknown)", {"unknown": UNKNOWN}, UNKNOWN),
        ("(x if unknown_hip else 0) > 1 or not unknown_hip", {"unknown_hip": UNKNOWN, "x": 5}, True),
        ("(x if unknown_hip else 0) > 1 or not unknown_hip", {"unknown_hip": UNKNOWN, "x": 0}, UNKNOWN),
        # ``a not in b`` is ``a in b`` negated; a query's own method called without arguments too
        ("(x if unknown_cfg.arch in ('A', 'B') else 0) > 1 or unknown_cfg.arch not in ('A', 'B')",
         {"unknown_cfg": UNKNOWN, "x": 5}, True),
        ("(x if unknown_p.is_hip() else 0) > 1 or not unknown_p.is_hip()", {"unknown_p": UNKNOWN, "x": 5}, True),
        # a call given arguments may answer otherwise each time
        ("(x if unknown_p.has(1) else 0) > 1 or not unknown_p.has(1)", {"unknown_p": UNKNOWN, "x": 5}, UNKNOWN),
        # objects made at the call: their attributes are the arguments; never None
        ("cfg.window > 4", {"cfg": NAMESPACE_8}, True),
        ("cfg.other > 4", {"cfg": NAMESPACE_8}, UNKNOWN),
        ("cfg is None or cfg.window < 2", {"cfg": NAMESPACE_8}, False),
        # isinstance against a plain sglang class: no literal is one; a record is of its own class
        ("not isinstance(c, sglang.modes.objects.Frame)", {"c": "clip.mp4"}, True),
        ("not isinstance(c, sglang.modes.objects.Frame)", {"c": Record("sglang.modes.objects.Frame", ())}, False),
        ("not isinstance(c, (str, sglang.modes.objects.Frame))", {"c": UNKNOWN}, UNKNOWN),
        # MLX arrays: shape and dtype; mlx's dtypes are distinct, and none is torch's
        ("a.dtype != b.dtype", {"a": mlx(2, "float16"), "b": mlx(2, "float32")}, True),
        ("a.dtype != torch.float16", {"a": mlx(2, "float16")}, True),
        ("a.shape[0] != 2", {"a": mlx(2, "float16")}, False),
        ("isinstance(a, torch.Tensor)", {"a": mlx(2, "float16")}, UNKNOWN),
        ("a.stride(0) != 1", {"a": mlx(2, "float16")}, UNKNOWN),
        # a generator over a list the call passes; an item a filter may drop decides nothing
        ("any(n % p != 0 for n in sizes if n)", {"sizes": [0, 64, 96], "p": 64}, True),
        ("any(n % p != 0 for n in sizes if n)", {"sizes": [0, 64, 128], "p": 64}, False),
        ("any(n % p != 0 for n in sizes if n)", {"sizes": [UNKNOWN, 64], "p": 64}, UNKNOWN),
        ("all(n > 0 for n in sizes)", {"sizes": (1, 2, UNKNOWN, 0)}, False),
        ("all(n > 0 for n in sizes)", {"sizes": UNKNOWN}, UNKNOWN),
        # tuples and sums a generator builds (nested, filtered); a sequence spread in a display
        ("sum((isinstance(s, tuple) for s in tuple((tuple((int(v) for v in s)) if isinstance(s, tuple) else int(s) "
         "for s in (*prefix, last) if isinstance(s, tuple) or s > 0)))) - 1",
         {"prefix": (0, (8, 4)), "last": (8, 4)}, True),
        ("sum((isinstance(s, tuple) for s in (*prefix, last))) - 1", {"prefix": (0, 5), "last": (8, 4)}, False),
        ("sum((isinstance(s, tuple) for s in (*prefix, last))) - 1", {"prefix": UNKNOWN, "last": (8, 4)}, UNKNOWN),
        ("max((n for n in sizes if n)) > 64", {"sizes": [0, 96, 8]}, True),
        ("max((n for n in sizes if n)) > 64", {"sizes": [UNKNOWN, 8]}, UNKNOWN),
    ],
)
def test_the_evaluator_is_three_valued(text, env, expected):
    expression = parse_when(text, list(env))
    assert holds(expression, env) is expected


@pytest.mark.parametrize("a, expected", [(2, True), (1, UNKNOWN), (0, False)])
def test_a_named_part_no_case_changes_is_worth_one_evaluation(monkeypatch, a, expected):
    """A named part (a start-up rule's [values]) is evaluated once for a launch, whatever the
    cases a query's test splits the condition into, where it reads no test the cases assume:
    its worth is kept by what it reads and what the case answers it."""
    from sglang_lint.checks.fails_when import language

    part = parse_when("a * 2 + b", ["a", "b"])
    expression = parse_when("(unknown_q.is_hip() and _v1 > 3) or (not unknown_q.is_hip() and _v1 > 1)",
                            ["unknown_q", "_v1"])
    evaluated, evaluate = [], language._eval
    monkeypatch.setattr(language, "_eval", lambda node, env: evaluated.append(node is part) or evaluate(node, env))
    env = {"a": a, "b": 0, "unknown_q": UNKNOWN, "_v1": Bound("_v1", part, 1, ("a", "b")), language.SHARED: {}}
    assert holds(expression, env) is expected
    assert evaluated.count(True) == 1


def test_a_value_shown_reads_each_named_part_once_however_many_paths_reach_it(monkeypatch):
    """A message's value (evaluate, no cases) reads a chain of named parts each read twice
    by the next: one evaluation per part, not one per path (2**20 here)."""
    from sglang_lint.checks.fails_when import language

    env = {"a": 3}
    for k in range(1, 21):
        env[f"_v{k}"] = Bound(f"_v{k}", parse_when(f"_v{k - 1} + _v{k - 1}" if k > 1 else "a + a",
                                                   ["a", f"_v{k - 1}"]), None, ("a",))
    evaluated, evaluate_node = [], language._eval
    monkeypatch.setattr(language, "_eval", lambda node, e: evaluated.append(node) or evaluate_node(node, e))
    assert language.evaluate(parse_when("_v20", ["_v20"]), env) == 3 * 2 ** 20
    assert len(evaluated) < 200


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[x for x in y]", "ListComp is not in the fails-when grammar"),
        ("lambda: x", "Lambda is not in the fails-when grammar"),
        ("os.getcwd() == x", "name 'os' is neither a parameter"),
        ("x ==", "not a Python expression"),
        ("len(n for n in y) > x", "a generator is read only as the one argument of any, all, tuple"),
        ("x(*y)", "a starred name outside a display"),
        ("any(x > 0 for x in y)", "hides a parameter"),
    ],
)
def test_the_grammar_refuses_what_it_cannot_evaluate(text, problem):
    with pytest.raises(WhenError, match=problem):
        parse_when(text, ["x", "y"])


def _shipped_fails_when_rules():
    return [rule for rule in load_rules([ROOT / "rules"]) for check in rule.checks if check.kind == "fails-when"]


def test_learning_a_value_never_flips_a_certain_verdict():
    """Monotone: for the shipped expressions and bindings near their own examples, hiding one
    value (UNKNOWN) gives either UNKNOWN or the same verdict as knowing it."""
    rng = random.Random(17)
    rules = _shipped_fails_when_rules()
    assert len(rules) > 1000
    checked = 0
    for rule in rng.sample(rules, 300):
        check = rule.checks[0]
        site = _site_of(rule, check)
        examples = find_examples(site, tries=300)
        if examples is None:
            continue
        for env in examples:
            verdict = holds(check.params.expression, env)
            for name in env:
                hidden = dict(env, **{name: UNKNOWN})
                assert holds(check.params.expression, hidden) in (UNKNOWN, verdict), (rule.code, name)
                checked += 1
    assert checked > 300


def _site_of(rule, check):
    from sglang_lint.derive.sites.fails_when.examples import PathSite

    return PathSite(rule.raise_site.module, rule.raise_site.function, rule.raise_site.exception,
                    rule.raise_site.message, rule.raise_site.line or 0, check.params.when, check.params.parameters,
                    ("function", check.targets[0].name))


# --- the deriver -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def derivation():
    return derive_sites(TREE, index_raises=True)


def test_the_paths_of_the_stand_in_tree(derivation):
    paths = {(p.function, p.message): p.when for p in derivation.paths if p.module == "sglang.modes.paths"}
    assert paths == {
        ("plan_layers", "need 0 <= start_layer < end_layer"): "not 0 <= start_layer < end_layer",
        # the parameter rebound in a branch: ``a if test else b``; the dict copy read with a default
        ("target_depth", "num_layers must be positive"):
            "(dict(config or {}).get('num_hidden_layers', 88) if num_layers is None else num_layers) < 1",
        # the early return's test is kept; the earlier raise is left out (the call fails there instead)
        ("patchify", "x must be 5-D"): "patch_size != 1 and x.dim() != 5",
        ("patchify", "height and width must be divisible by patch_size"):
            "patch_size != 1 and (x.shape[3] % patch_size != 0 or x.shape[4] % patch_size != 0)",
        # a helper that only tests and returns, read in place; a module constant put in
        ("grouped_topk", "grouped top-k needs n_group > 1 and top_k <= 64"):
            "not (False if n_group <= 1 else top_k <= 64)",
        ("same_dtype", "a, b and out must be bfloat16"):
            "bool(a.dtype != torch.bfloat16 or b.dtype != torch.bfloat16 or out.dtype != torch.bfloat16)",
        ("paired", "keys_b and thresholds go together"): "(keys_b is None) != (thresholds is None)",
        ("Pool.__init__", "size must exceed slots * PAGE"): "size <= slots * 64",
    }
    # nested_mode is a conditional rule of the one-parameter deriver; lazily a number-range rule
    ruled = {s.function for s in derivation.rules if s.module == "sglang.modes.paths"}
    assert {"nested_mode", "lazily"} <= ruled


def test_the_object_paths_of_the_stand_in_tree(derivation):
    paths = {(p.function, p.message): (p.when, p.receiver, [name for name, _ in p.records])
             for p in derivation.paths if p.module == "sglang.modes.objects"}
    assert paths == {
        # a dataclass's __post_init__: the fields are the parameters; an sglang class for isinstance
        ("Clip.__post_init__", "a frame clip holds a Frame"): (
            "kind == 'frame' and (not isinstance(content, sglang.modes.objects.Frame))", "", []),
        # the parameter's annotation names a record class: a call that makes one is followed
        ("resolve_window", "window exceeds the server's"): (
            "config is not None and config.window is not None and (config.window > server_window)",
            "", ["sglang.modes.objects.WindowConfig"]),
        # a helper of another module, read in place with that module's constant
        ("speculative_setup", "speculative decoding needs a known architecture"): (
            "speculative is not None and (not architecture in ('DenseForCausalLM', 'SparseForCausalLM'))", "", []),
        # ``set_rate`` is defined by two classes, ``build`` too common a name: each rule needs its
        # own class's receiver
        ("DenseBuilder.set_rate", "rate must be in (0, 1]"): (
            "not 0.0 < rate <= 1.0", "sglang.modes.objects.DenseBuilder", []),
        ("SparseBuilder.set_rate", "too sparse"): ("rate * pages < 1", "sglang.modes.objects.SparseBuilder", []),
        ("DenseBuilder.build", "negative rate"): ("rate < 0", "sglang.modes.objects.DenseBuilder", []),
        ("pack_sizes", "item lengths must be page-aligned"): (
            "any((n % page_size != 0 for n in item_lens if n))", "", []),
        # a function-level import: the other module's helper and its constants, built with frozenset
        ("sequence_parallel", "sequence parallel speculates only with DFLASH on Muse"): (
            "speculative is not None and (not (architecture in {'MuseForCausalLM'} and speculative == 'DFLASH'))",
            "", []),
        ("sequence_parallel", "sequence parallel needs a supported architecture"): (
            "architecture not in {'MuseForCausalLM', 'DenseForCausalLM'}", "", []),
        # the one-parameter rule's calls (device None) left to it
        ("block_sizes", "pass a CUDA device or a capability"): (
            "(capability is None and (device is None or device.type != 'cuda')) "
            "and (not (capability is None and device is None))", "", []),
        # torch's state is unknown at a call, and decides nothing when the tensor does
        ("fused_norm", "the fused norm runs on CUDA tensors under no_grad"): (
            "not (x.is_cuda and (not torch.is_grad_enabled()))", "", []),
        # an enum's members, told apart by name (Mode, whose two names share a value, gives no rule);
        # the SLIDING branch before it only raises: its test is no part of the path
        ("backend_path", "invalid attention backend: {backend}"): (
            "backend != sglang.modes.objects.Backend.SDPA and backend not in (sglang.modes.objects.Backend.FLASH, "
            "None) and backend", "", []),
        ("backend_path", "sliding tile attention is not supported here"): (
            "backend != sglang.modes.objects.Backend.SDPA and backend not in (sglang.modes.objects.Backend.FLASH, "
            "None) and (backend == sglang.modes.objects.Backend.SLIDING)", "", []),
        ("CpuPlatform.pick_backend", "no sliding tile attention on the CPU"): (
            "backend == sglang.modes.objects.Backend.SLIDING", "sglang.modes.objects.CpuPlatform", []),
        ("GpuPlatform.pick_backend", "VMoBA needs an even number of heads"): (
            "backend == sglang.modes.objects.Backend.VMOBA and heads % 2", "sglang.modes.objects.GpuPlatform", []),
    }
    # a class method two classes define: its receiver's class, which may be the class itself
    assert {p.function for p in derivation.paths if p.on_class} == {
        "CpuPlatform.pick_backend", "GpuPlatform.pick_backend"}
    (enum,) = {e for p in derivation.paths if p.function == "backend_path" for e in p.enums}
    assert (enum.qualified, enum.members, enum.falsy, enum.plain) == (
        "sglang.modes.objects.Backend", ("SDPA", "FLASH", "SLIDING", "VMOBA"), (), True)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("@dataclass(kw_only=True)\nclass C:\n    a: int\n    b: str = 'x'\n"
         "    c: list = field(default_factory=list)\n", RecordClass(("a", "b", "c"), 0, {"b": "x", "c": []})),
        ("class C(msgspec.Struct, frozen=True):\n    a: int\n    b: dict = {}\n",
         RecordClass(("a", "b"), 2, {"b": {}})),
        ("class C(NamedTuple):\n    a: int\n    b: int = 2\n", RecordClass(("a", "b"), 2, {"b": 2})),
        ("@dataclass\nclass C:\n    a: int\n    _: KW_ONLY\n    b: int = 1\n",
         RecordClass(("a", "b"), 1, {"b": 1})),
        # something of its own runs, or a field is not an argument: not a record
        ("@dataclass\nclass C:\n    a: int\n    def __post_init__(self):\n        self.a = 1\n", None),
        ("@dataclass\nclass C:\n    a: int = field(init=False)\n", None),
        ("@dataclass\nclass C(Base):\n    a: int\n", None),
        ("@dataclass\nclass C:\n    a: int = make()\n", None),
        ("class C(pydantic.BaseModel):\n    a: int\n", None),
    ],
)
def test_record_classes(source, expected):
    assert record_class(ast.parse(source).body[0]) == expected


def test_the_shapes_it_cannot_write_are_counted_with_their_reason(derivation):
    skipped = derivation.path_skipped
    assert skipped["the path to the raise: the raise is inside a for statement"] >= 1  # in_a_loop
    # reads_a_registry: REGISTRY is filled at run time
    assert skipped["the path to the raise: reads a global name that is not a literal constant"] >= 1
    # fails-when rules are not counted as skipped guards any more
    covered = {(p.module, p.function, p.line) for p in derivation.paths}
    skipped_sites = [s for s in derivation.sites if s.skipped is not None]
    left = [s for s in skipped_sites if (s.module, s.function, s.line) not in covered]
    assert len(left) < len(skipped_sites)  # some guard the one-parameter deriver skipped has a path rule
    assert sum(derivation.skipped().values()) == len(left)


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory, derivation):
    rules = tmp_path_factory.mktemp("rules")
    write_catalog(derivation, rules)
    return RuleSet([r for r in load_rules([rules]) if r.checks[0].kind == "fails-when"])


def test_written_rules_flag_their_bad_example_and_not_their_good(ruleset, derivation):
    # 8 of sglang.modes.paths, 15 of sglang.modes.objects, 4 of sglang.modes.state, 3 of
    # sglang.modes.forwards, 12 of other modules (9 methods matched on their receiver's class: 4
    # share their name with another class's, ``build`` is too common, 4 read their receiver's state)
    assert len(ruleset.rules) == len(derivation.paths) == 42
    for rule in ruleset.rules:
        assert {d.code for d in lint(rule.docs.bad, "user.py", ruleset)} == {rule.code}, rule.docs.bad
        assert lint(rule.docs.good, "user.py", ruleset) == [], rule.docs.good


USER_CODE = '''\
import torch

from sglang.modes.paths import Pool, paired, patchify, plan_layers, same_dtype, target_depth

FIRST, LAST = 4, 2
first, last = sorted((4, 2))  # a call's result: not followed
latent = torch.zeros(1, 16, 1, 63, 64)
weights = torch.ones(8, 8, dtype=torch.bfloat16)

plan_layers(4, 2)  # bad
plan_layers(start_layer=0, end_layer=8)
plan_layers(FIRST, LAST)  # names unpacked from a display are followed  # bad
plan_layers(first, last)
target_depth(0)  # bad
target_depth(config={"num_hidden_layers": 0})  # bad
target_depth(config={"num_hidden_layers": 12})
patchify(latent)  # bad
patchify(latent.view(1, 16, 1, 4032, 1), patch_size=1)
patchify(latent[:, :, :, :62])  # unknown: a slice of a tensor is not followed
same_dtype(weights, weights, weights.float())  # bad
same_dtype(weights, weights, weights)
paired(keys_b=torch.randint(0, 9, (4,)))  # bad
paired()
Pool(256)  # bad
Pool(256, slots=3)
'''


def test_user_calls_through_the_engine(ruleset):
    found = [(d.line, d.col) for d in lint(USER_CODE, "user.py", ruleset)]
    bad = [(n, 0) for n, line in enumerate(USER_CODE.splitlines(), 1) if line.endswith("# bad")]
    assert found == bad


OBJECTS_CODE = '''\
from types import SimpleNamespace

import mlx.core as mx
import torch

from sglang.modes.objects import Clip, DenseBuilder, Frame, SparseBuilder, WindowConfig, resolve_window
from sglang import modes
from sglang.modes import Backend, objects
from sglang.modes.objects import backend_path, block_sizes, fused_norm, pack_sizes, sequence_parallel
from sglang.modes.objects import CpuPlatform, GpuPlatform, speculative_setup


class MyPlatform(CpuPlatform):
    pass


class OwnPlatform(MyPlatform):
    @classmethod
    def pick_backend(cls, backend):
        return "sdpa"


from sglang.modes.paths import same_dtype

STEPS, TOP = 2, 8
server = dict(server_window=4)
resolve_window(WindowConfig(window=8), **server)  # bad
resolve_window(WindowConfig(window=2), **server)
resolve_window(WindowConfig(enabled=True), **server)
resolve_window(WindowConfig(8), **server)  # kw_only: Python's TypeError, not sglang's raise
resolve_window(SimpleNamespace(window=8), server_window=STEPS * TOP - 12)  # bad
resolve_window(SimpleNamespace(window=8), server_window=STEPS * TOP)
resolve_window(SimpleNamespace(), server_window=4)  # no window attribute: not followed
resolve_window(config=None, **dict(server_window=0))
Clip("frame", "clip.mp4")  # bad
Clip("frame", Frame())
Clip(kind="text", content="hello")
speculative_setup("LlamaForCausalLM", speculative="eagle")  # bad
speculative_setup("DenseForCausalLM", speculative="eagle")
DenseBuilder().set_rate(1.5)  # bad
builder = DenseBuilder()
builder.set_rate(rate=0.5)
builder.set_rate(rate=2.0)  # bad
builder.build(-1)  # a common name: the receiver's class decides  # bad
make_builder().build(-1)
SparseBuilder().set_rate(1.5)
unknown = make_builder()
unknown.set_rate(1.5)  # the receiver's class is not known
half = mx.zeros((4, 8), dtype=mx.bfloat16)
same_dtype(half, half, half)  # bad
pack_sizes([4096, 6000])  # bad
pack_sizes([4096, 0, 8192])
pack_sizes(sizes_from_config)
sequence_parallel("MuseForCausalLM", speculative="EAGLE")  # bad
sequence_parallel("MuseForCausalLM", speculative="DFLASH")
sequence_parallel("LlamaForCausalLM")  # bad
block_sizes(torch.device("cpu"))  # bad
block_sizes()  # the one-parameter rule's call: not this rule's
block_sizes(torch.device("cuda"))
block_sizes(torch.device("cpu"), capability=9)
fused_norm(torch.zeros(4, 8))  # bad
fused_norm(torch.zeros(4, 8, device="cuda"))
backend_path(Backend.VMOBA)  # the package's name of the enum  # bad
backend_path(modes.Backend.SLIDING)  # bad
backend_path(objects.Backend.FLASH)
backend_path(Backend.SDPA)
backend_path(None)
backend_path(Backend.from_config(cfg))  # not a member: unknown
CpuPlatform.pick_backend(Backend.SLIDING)  # a class method called on its class  # bad
CpuPlatform().pick_backend(backend=Backend.SLIDING)  # bad
MyPlatform.pick_backend(Backend.SLIDING)  # a subclass of this file  # bad
GpuPlatform.pick_backend(Backend.SLIDING)
GpuPlatform.pick_backend(Backend.VMOBA, heads=3)  # bad
platform.pick_backend(Backend.SLIDING)  # the receiver's class is not known
OwnPlatform.pick_backend(Backend.SLIDING)  # a subclass that defines the method again runs its own
OwnPlatform().pick_backend(Backend.SLIDING)
'''


def test_objects_records_receivers_and_arrays_through_the_engine(ruleset):
    found = [d.line for d in lint(OBJECTS_CODE, "user.py", ruleset)]
    assert found == [n for n, line in enumerate(OBJECTS_CODE.splitlines(), 1) if line.endswith("# bad")]


def test_a_raise_two_rules_share_is_reported_once(tmp_path, derivation):
    # block_sizes: the one-parameter rule reports a None device, the fails-when rule the rest
    write_catalog(derivation, tmp_path)
    both = RuleSet(list(load_rules([tmp_path])))
    source = ("import torch\nfrom sglang.modes.objects import block_sizes\n"
              "block_sizes()\nblock_sizes(None)\nblock_sizes(torch.device('cpu'))\nblock_sizes(capability=9)\n")
    kinds = {rule.code: rule.checks[0].kind for rule in both.rules}
    found = [(d.line, kinds[d.code]) for d in lint(source, "user.py", both)]
    # (a conditional one-parameter rule does not report its argument left out, line 3: the
    # fails-when rule leaves that call to it all the same, as it cannot tell a None passed from
    # a None defaulted)
    assert found == [(4, "not-none"), (5, "fails-when")]


# --- the shipped catalog on user code: the engine and a real flake8 --------------------------

def test_the_fixture_through_the_engine_and_flake8():
    expected = expected_findings(FIXTURE)
    assert len(expected) == 9
    found = {(d.line, d.col + 1, d.code) for d in lint(FIXTURE.read_text(encoding="utf-8"), str(FIXTURE))}
    assert found == expected
    result = run_flake8("--select", "SGL", str(FIXTURE.relative_to(ROOT)), cwd=ROOT)
    assert findings_of(result.stdout.splitlines()) == expected, result.stdout + result.stderr


def test_messages_show_the_values_and_the_path():
    source = "import torch\nfrom sglang.srt.layers.mova import routed_linear_reference\n" \
             "routed_linear_reference(torch.randn(2, 16, 512), None, None, None)\n"
    (finding,) = [d for d in lint(source, "user.py") if d.code]
    assert finding.message.startswith("routed_linear_reference(...) fails at run time: ValueError: MoVA routed "
                                      "linear expects [tokens, hidden] inputs (hidden_states = tensor of shape "
                                      "(2, 16, 512), torch.float32 on cpu; sglang raises this when "
                                      "hidden_states.ndim != 2")


def test_an_expression_never_parsed_by_eval():
    # The expression is read as data: a rule whose ``when`` names anything but its parameters is refused.
    with pytest.raises(WhenError):
        parse_when("__import__('os').system('x')", ["x"])
    assert isinstance(parse_when("x.shape[0] > 2", ["x"]), ast.Compare)


STATE_CODE = '''\
import torch

from sglang.modes.state import Picker, QuietEmbed, Sampler, TimeEmbed

t = torch.zeros(2, 64)
embed = TimeEmbed(64, use_cond=True)
embed(t)  # calling an nn.Module runs its forward  # bad
embed(t, cond=t)
embed.forward(t)  # bad
TimeEmbed(64, True).forward(t, None)  # bad
plain = TimeEmbed(64)
plain(t)
TimeEmbed(64, heads=2).split(3)  # (2 * 2) % 3  # bad
TimeEmbed(64, heads=0).split(3)  # bad
TimeEmbed(64, heads=2).split(2)
TimeEmbed(64).split(3)  # 8 % 3  # bad
TimeEmbed(64, scale=8.0).rescale(2)  # scale is set again by rescale itself: unknown
changed = TimeEmbed(64, use_cond=True)
changed.use_cond = False  # an attribute set in this file: its receiver's state is not known
changed(t)
made_elsewhere = build_embed(64)
made_elsewhere(t)


class MyEmbed(TimeEmbed):
    def __init__(self):
        super().__init__(64, use_cond=False)


mine = MyEmbed()
mine(t)  # a subclass: its own __init__ makes the state
picker = Picker("topk")
picker(t)  # bad
picker(t, top_k=4)
Picker()(t)  # the call of a call: not followed
sampler = Sampler("topk")
sampler(t)  # mode was stored before a method that may set anything
QuietEmbed(64, use_cond=True).mute(2)  # TimeEmbed's __init__ made it  # bad
QuietEmbed(64).mute(2)
'''


def test_a_receiver_made_at_the_call_gives_its_state(ruleset, derivation):
    paths = {p.function: (p.when, p.receiver.rpartition(".")[2], p.called, [q.name for q in p.parameters if q.receiver])
             for p in derivation.paths if p.module == "sglang.modes.state"}
    assert paths == {
        "TimeEmbed.forward": ("use_cond and cond is None", "TimeEmbed", True, ["dim", "use_cond", "scale", "heads"]),
        "TimeEmbed.split": ("(2 * heads if heads else 8) % parts", "TimeEmbed", False,
                            ["dim", "use_cond", "scale", "heads"]),
        "Picker.__call__": ("mode == 'topk' and top_k is None", "Picker", True, ["mode"]),
        "QuietEmbed.mute": ("use_cond and strength > 1", "QuietEmbed", False, ["dim", "use_cond", "scale", "heads"]),
    }
    # the examples make receivers TimeEmbed's own check (heads == 0) accepts
    (split,) = [p for p in derivation.paths if p.function == "TimeEmbed.split"]
    assert split.bad.get("heads") != 0 and split.good.get("heads") != 0
    found = [d.line for d in lint(STATE_CODE, "user.py", ruleset)]
    assert found == [n for n, line in enumerate(STATE_CODE.splitlines(), 1) if line.endswith("# bad")]


INSTANCE_HEADER = "import torch\n\nfrom sglang.modes.state import TimeEmbed\n\nt = torch.zeros(2, 64)\n"


@pytest.mark.parametrize("body, may_fire", [
    ("embed = TimeEmbed(64, use_cond=True)\n", False),  # made, never called: no forward runs
    ("embed = TimeEmbed(64, use_cond=True)\nembed(t)\n", True),
    ("embed = TimeEmbed(64, use_cond=True)\ndef f():\n    embed(t)\n", True),  # called in a function
    ("a = b = TimeEmbed(64, use_cond=True)\nb(t)\n", True),
    ("embed, n = TimeEmbed(64, use_cond=True), 3\nembed(t)\n", True),  # unpacked from a display
    ("embed: TimeEmbed = TimeEmbed(64, use_cond=True)\nembed(t)\n", True),
    ("class M:\n    def __init__(self):\n        self.embed = TimeEmbed(64, use_cond=True)\n"
     "    def go(self):\n        self.embed(t)\n", False),  # an attribute: not followed
    ("run(TimeEmbed(64, use_cond=True))\n", False),
    ("embed = TimeEmbed(64, use_cond=True)\nother(t)\n", False),
])
def test_a_constructor_screens_as_the_instance_calls_it_makes(ruleset, body, may_fire):
    """``m = Block(...); m(x)`` runs ``forward``: the constructor call goes on only where the
    instance it makes is bound to a name the file calls (engine/dispatch.py ``_instance_calls``)."""
    source = INSTANCE_HEADER + body
    unscreened = RuleSet(ruleset.catalog, screen=False)
    assert ruleset.may_match(source) is may_fire
    assert lint(source, "user.py", ruleset) == lint(source, "user.py", unscreened)
    assert (lint(source, "user.py", unscreened) != []) is may_fire


KERNELS_CODE = '''\
import torch

from sglang.modes.kernels import packed_decode, segment_layout

x, state = torch.zeros(4, 64), torch.zeros(2, 4, 8)
packed_decode(x, state, torch.zeros(4, 4, 8))
packed_decode(x, state, torch.zeros(4, 8, 4))  # [B, V, HV]  # bad
packed_decode(x, state, out=torch.zeros(4, 4, 8).view(4, 32))  # a view of another shape  # bad
packed_decode(x, state, torch.zeros(4, 4, 8).contiguous())
packed_decode(x.view(2, 128), state, torch.zeros(2, 4, 8))
packed_decode(x.view(2, 128), state, torch.zeros(4, 4, 8))  # bad
segment_layout(((8, 4), (8, 4)))  # two grids: one reference, and no keep rate  # bad
segment_layout(((8, 4), (8, 4)), keep_rate=0.5)
segment_layout((0, (8, 4)))  # a count the filter drops, one grid: no reference
segment_layout(None, prefix=((2, 2),))  # the prefix spread before the default grid  # bad
segment_layout(None)
'''


def test_sizes_a_helper_returns_sizes_handed_to_calls_and_tuples_generators_build(ruleset, derivation):
    paths = {(p.function, p.line): p.when for p in derivation.paths
             if p.module in ("sglang.modes.kernels", "sglang.modes.packed")}
    assert paths == {
        # the helper's own checks are its rules; what it returns is read in place in its caller's path
        ("validate_packed", 7): "x.ndim != 2",
        ("validate_packed", 10): "x.shape[1] <= state.shape[-2:][0] * state.shape[-2:][1]",
        # batch = x.size(0) is handed to x.view(batch, -1): a number, which no call changes
        ("packed_decode", 12): "out.shape != (x.size(0), state.shape[-2:][0], state.shape[-2:][1])",
        # tuples a generator builds from a sequence the call passes (or one spread into a display)
        ("segment_layout", 25): "sum((isinstance(s, tuple) for s in tuple((tuple((int(v) for v in s)) if "
                                "isinstance(s, tuple) else int(s) for s in ((*prefix, (1, 1)) if packed is None "
                                "else packed) if isinstance(s, tuple) or s > 0)))) - 1 and keep_rate is None",
    }
    found = [d.line for d in lint(KERNELS_CODE, "user.py", ruleset)]
    assert found == [n for n, line in enumerate(KERNELS_CODE.splitlines(), 1) if line.endswith("# bad")]
