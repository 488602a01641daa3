# raise: sglang.srt.disaggregation.common.dcp_pack:dcp_pack_buffer_bytes line 30 (the guard does not test the parameter directly)  # noqa: E501
# why: 6000 spans a 64-token page but 6000 % 64 != 0, so the page-alignment check raises; 4096 and 8192 are aligned.
from sglang.srt.disaggregation.common.dcp_pack import dcp_pack_buffer_bytes

PAGE_SIZE = 64

bad = dcp_pack_buffer_bytes([4096, 6000], PAGE_SIZE, max_tokens=8192, dcp_size=2)  # recall: bad
ok = dcp_pack_buffer_bytes([4096, 8192], PAGE_SIZE, max_tokens=8192, dcp_size=2)  # recall: good
