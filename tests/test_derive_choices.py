"""How the deriver reads a flag's choices from sglang's source (derive/server_args/choices.py): the
lists a plugin extends, in each spelling of the hook sglang has used, the literals sglang adds to
a list itself, and a flag registered without ``choices=``. Small trees written here; the
comparison with sglang's real parsers is tests/test_server_arg_choices.py."""

from __future__ import annotations

import textwrap

from sglang_lint.derive.server_args.fields import derive_server_fields
from sglang_lint.derive.source.tree import read_modules

SERVER_ARGS = '''
import dataclasses
from typing import Literal, Optional

BACKENDS = ["triton", "fa3"]
LOADERS = ["auto", "pt"]
SAMPLERS = {"flashinfer", "pytorch"}
if os.environ.get("EXTRA"):
    SAMPLERS.add("oracle")
GROWN = ["a"]
{hooks}

@dataclasses.dataclass
class ServerArgs:
    backend: Optional[str] = None
    loader: str = "auto"
    sampler: str = "pytorch"
    grown: str = "a"
    dispatch: Optional[Literal["static", "dynamic"]] = None

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--backend", type=str, choices=BACKENDS)
        parser.add_argument("--loader", type=str, choices=LOADERS)
        parser.add_argument("--sampler", type=str, choices=SAMPLERS)
        parser.add_argument("--grown", type=str, choices=GROWN)
        parser.add_argument("--dispatch", type=str)
'''


def fields_of(tmp_path, hooks: str, elsewhere: str = ""):
    srt = tmp_path / "sglang" / "srt"
    srt.mkdir(parents=True)
    (tmp_path / "sglang" / "__init__.py").write_text("")
    (srt / "__init__.py").write_text("")
    (srt / "server_args.py").write_text(SERVER_ARGS.replace("{hooks}", textwrap.dedent(hooks)))
    (srt / "plugins.py").write_text(textwrap.dedent(elsewhere))
    return {f.name: (f.choices, f.extensible) for f in derive_server_fields(read_modules(tmp_path))}


FUNCTION_HOOKS = '''
def add_backend_choices(choices):
    """Plugins register their backends."""
    BACKENDS.extend(choices)

def add_loader_choices(choices):
    LOADERS.extend(choices)
'''


def test_a_list_with_a_hook_written_as_a_function_is_read_as_shipped_and_open_to_plugins(tmp_path):
    fields = fields_of(tmp_path, FUNCTION_HOOKS)
    assert fields["backend"] == (("triton", "fa3"), True)
    assert fields["loader"] == (("auto", "pt"), True)


def test_a_list_with_a_hook_written_as_an_alias_is_read_the_same(tmp_path):
    fields = fields_of(tmp_path, "add_backend_choices = BACKENDS.extend\n")
    assert fields["backend"] == (("triton", "fa3"), True)
    assert fields["loader"] == (("auto", "pt"), False)  # no hook: closed


def test_literals_sglang_adds_itself_are_choices_and_close_nothing(tmp_path):
    fields = fields_of(tmp_path, "")
    assert set(fields["sampler"][0]) == {"flashinfer", "pytorch", "oracle"} and fields["sampler"][1] is False


def test_a_register_function_that_adds_its_parameter_is_a_hook(tmp_path):
    elsewhere = '''
    from sglang.srt.server_args import SAMPLERS

    def register_sampler(name, fn):
        SAMPLERS.add(name)
    '''
    fields = fields_of(tmp_path, "", elsewhere)
    assert set(fields["sampler"][0]) == {"flashinfer", "pytorch", "oracle"} and fields["sampler"][1] is True


def test_a_list_sglang_fills_with_computed_values_has_no_choices(tmp_path):
    elsewhere = '''
    from sglang.srt.server_args import GROWN

    GROWN.extend(name.lower() for name in discovered())
    '''
    assert fields_of(tmp_path, "", elsewhere)["grown"] == ((), False)


def test_a_flag_registered_without_choices_takes_any_value_whatever_its_annotation(tmp_path):
    # Literal[...] is a hint: argparse is given no choices, and ServerArgs never checks it
    assert fields_of(tmp_path, "")["dispatch"] == ((), False)


def test_a_set_a_plugin_registers_into_through_a_re_export_is_open_to_plugins(tmp_path):
    # sglang 0.5.20+: the set is built in one module from another's names, server_args imports
    # it from there, and the sampler registers into server_args' name inside a function.
    srt = tmp_path / "sglang" / "srt"
    (srt / "arg_groups").mkdir(parents=True)
    for package in (tmp_path / "sglang", srt, srt / "arg_groups"):
        (package / "__init__.py").write_text("")
    (srt / "arg_groups" / "choices.py").write_text(
        'BUILT_IN = frozenset({"flashinfer", "pytorch"})\nSAMPLERS = set(BUILT_IN)\n')
    server_args = SERVER_ARGS.replace('SAMPLERS = {"flashinfer", "pytorch"}\n', "").replace(
        "import dataclasses\n", "import dataclasses\nfrom sglang.srt.arg_groups.choices import SAMPLERS\n")
    (srt / "server_args.py").write_text(server_args.replace("{hooks}", ""))
    (srt / "sampler.py").write_text(textwrap.dedent('''
        def register_sampler(backend, factory):
            from sglang.srt.server_args import SAMPLERS

            SAMPLERS.add(backend)
        '''))
    fields = {f.name: (set(f.choices), f.extensible) for f in derive_server_fields(read_modules(tmp_path))}
    assert fields["sampler"] == ({"flashinfer", "pytorch", "oracle"}, True)
    (srt / "sampler.py").write_text("")  # no one registers: the set as built, closed
    fields = {f.name: (set(f.choices), f.extensible) for f in derive_server_fields(read_modules(tmp_path))}
    assert fields["sampler"] == ({"flashinfer", "pytorch", "oracle"}, False)
