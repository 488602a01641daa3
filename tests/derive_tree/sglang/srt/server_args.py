# A stand-in for sglang's server_args.py: flags registered by hand, with choices computed
# from a registry (plugins may add parsers), an enum, and a set grown under a condition.
import sys

from sglang.srt.arg_groups.choices import SAMPLING_BACKEND_CHOICES


def _parser_choices():
    module = sys.modules.get("sglang.srt.parser.registry")
    if module is not None:
        return list(module.Parser.DetectorMap)
    from sglang.srt.parser.names import PARSER_NAMES

    return list(PARSER_NAMES)


def _canary_modes():
    from sglang.srt.kernels.consts import CanaryMode

    return list(CanaryMode)


class ServerArgs:
    @staticmethod
    def add_cli_args(parser, envs):
        sampling_choices = set(SAMPLING_BACKEND_CHOICES)
        if envs.ORACLE:
            sampling_choices.add("oracle")
        parser.add_argument("--sampling-backend", type=str, choices=sampling_choices)
        parser.add_argument("--reasoning-parser", type=str, choices=["auto"] + _parser_choices())
        parser.add_argument("--canary-data", choices=[m.name.lower() for m in _canary_modes()])
        parser.add_argument("--config", type=str)
        parser.add_argument("--bucket-bounds", type=float, nargs="+")
        parser.add_argument("--old-graphs", action="store_true", dest="internal_only")
