# A stand-in for sglang's platforms: the in-tree ones set no defaults of their own.
import torch


class Platform:
    def apply_server_args_defaults(self, server_args):
        """Out-of-tree platforms override this; sglang's own set nothing."""


class CudaPlatform(Platform):
    device_name = "cuda"


current_platform = CudaPlatform() if torch.cuda.is_available() else Platform()
