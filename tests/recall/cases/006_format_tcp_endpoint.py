# raise: sglang.multimodal_gen.runtime.utils.common:format_tcp_endpoint line 112 (no part of the guard tests the parameter alone)  # noqa: E501
# why: 70000 > 65535 fails the range check `port < 0 or port > 65535`; 5555 is inside it.
from sglang.multimodal_gen.runtime.utils.common import format_tcp_endpoint

SCHEDULER_PORT = 70000

bad = format_tcp_endpoint("127.0.0.1", SCHEDULER_PORT, "scheduler")  # recall: bad
ok = format_tcp_endpoint("127.0.0.1", 5555, "scheduler")  # recall: good
