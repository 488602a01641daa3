# The hooks of the stand-in's resolution pipeline, one form each.
import torch

from sglang.srt.arg_groups.overrides import declare_resolution, record_foreign_defaults, resolving_view
from sglang.srt.arg_groups.platform import current_platform
from sglang.srt.environ import envs
from sglang.srt.plugins import architectures_of, load_kernel_spec, load_speculative_algorithm, load_watermark


def handle_platform_defaults(server_args):
    # a method whose every sglang definition writes nothing
    record_foreign_defaults(server_args, "platform", current_platform.apply_server_args_defaults)


def handle_speculative_plugin(server_args):
    cfg = resolving_view(server_args)
    if cfg.speculative_algorithm is not None:
        algo = load_speculative_algorithm(cfg.speculative_algorithm)
        if algo.custom:
            # a registered plugin's callback: no sglang class has a method of its name
            record_foreign_defaults(server_args, "speculative", algo.validate_plugin_args)


def handle_renamed_backends(server_args):
    renamed = {}
    for attr in ("attention_backend", "decode_attention_backend"):
        if getattr(server_args, attr, None) == "compressed":
            renamed[attr] = "dsv4"
    if renamed:
        declare_resolution(server_args, "renamed", **renamed)


def handle_watermark(server_args):
    cfg = resolving_view(server_args)
    if cfg.watermark_config is None:
        return
    config = load_watermark(cfg.watermark_config)
    resolved = {f"watermark_{name}": getattr(config, name) for name in config.names}
    if resolved:
        declare_resolution(server_args, "watermark", **resolved)


def handle_megakernel(server_args):
    cfg = resolving_view(server_args)
    if not cfg.enable_megakernel:
        return
    spec = load_kernel_spec()
    # a callable of a plugin's spec, handed the read-only view: it cannot write a field
    reasons = spec.disable_reasons(cfg)
    if reasons:
        raise ValueError("the megakernel cannot serve this configuration")


def handle_data_parallelism(server_args):
    cfg = resolving_view(server_args)
    if cfg.enable_dp_attention and torch.cuda.device_count() > 1:
        declare_resolution(server_args, "dp", schedule_conservativeness=cfg.schedule_conservativeness * 0.3)


def handle_multi_layer_eagle(server_args):
    cfg = resolving_view(server_args)
    # sglang turns the variable on for some models: where the launch sets it, it is on either way
    if "MiMoForCausalLM" in architectures_of(cfg.model_path):
        if not envs.SGLANG_ENABLE_SPEC_V2.get():
            envs.SGLANG_ENABLE_SPEC_V2.set(True)
    if envs.SGLANG_ENABLE_SPEC_V2.get() and cfg.speculative_eagle_topk is not None and cfg.speculative_eagle_topk > 1:
        raise ValueError("Spec v2 only supports topk 1")


def check_server_args(server_args):
    cfg = server_args._resolved()
    assert cfg.schedule_conservativeness >= 0, "schedule_conservativeness must be non-negative"
    if cfg.tp_size % cfg.attn_cp_size != 0:
        raise ValueError("tp_size must be divisible by attn_cp_size")
    if cfg.attention_backend == "flex_attention" and cfg.speculative_algorithm is not None:
        raise ValueError("Speculative decoding is not supported with Flex Attention")
    if cfg.language_only and len(cfg.encoder_urls) == 0:
        raise ValueError("requires at least one encoder url")
    if cfg.watermark_delta <= 0:
        raise ValueError("watermark_delta must be positive")
