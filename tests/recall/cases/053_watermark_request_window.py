# raise: sglang.srt.sampling.watermarking.core:resolve_watermark_request line 212 (the guard does not run on every call)
# why: a request context_window of 8 exceeds the server default of 4 and raises; 2 is within it (both enable the
# watermark: a request config that sets neither enabled nor key raises at line 235).
from sglang.srt.sampling.watermarking.core import WatermarkRequestConfig, resolve_watermark_request

server = dict(server_enabled=True, default_key="k3y", default_context_window=4, default_enabled=True, enforce_all=False)

bad = resolve_watermark_request(WatermarkRequestConfig(enabled=True, context_window=8), **server)  # recall: bad
ok = resolve_watermark_request(WatermarkRequestConfig(enabled=True, context_window=2), **server)  # recall: good
