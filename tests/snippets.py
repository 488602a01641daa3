"""Small sources several test files lint: one copy each, the columns noted where tests rely on them."""

from __future__ import annotations

# Imports SGL001's function (set_capture_flag_on_blocks) under its real module name.
CAPTURE_MODULE = (
    "sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.sana_wm.streaming_refiner"
)
CAPTURE_IMPORT = f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks\n"
# SGL001 at (1-based) column 31: the 'pre'.
CAPTURE_PRE = "set_capture_flag_on_blocks(t, 'pre', enable=True)\n"
# SGL004 at (1-based) column 36, with or without any import: the method name is sglang's own.
DFLASH_NONE = "model.set_dflash_layers_to_capture(None)\n"
# Line 2: SGL001 at column 31; line 3: SGL004 at column 36.
SGL001_AND_SGL004 = CAPTURE_IMPORT + CAPTURE_PRE + DFLASH_NONE
ENGINE_IMPORT = "import sglang as sgl\n"
LAUNCH_IMPORT = "from sglang.test.test_utils import popen_launch_server\n"
