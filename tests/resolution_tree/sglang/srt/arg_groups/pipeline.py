from sglang.srt.arg_groups import hooks


def run_resolution_pipeline(server_args):
    hooks.handle_platform_defaults(server_args)
    hooks.handle_speculative_plugin(server_args)
    hooks.handle_renamed_backends(server_args)
    hooks.handle_watermark(server_args)
    hooks.handle_megakernel(server_args)
    hooks.handle_data_parallelism(server_args)
    hooks.handle_multi_layer_eagle(server_args)
    hooks.check_server_args(server_args)
