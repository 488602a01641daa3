# raise: sglang.srt.configs.iquest_q1:IQuestQ1MTPConfig.__init__ line 185 (the guard is and-ed with another condition)
# why: the default sliding_window 512 is a positive window, and swa_rope_theta=None is falsy, so __init__ raises.
from sglang.srt.configs.iquest_q1 import IQuestQ1MTPConfig

bad = IQuestQ1MTPConfig(num_draft_slots=7, swa_rope_theta=None)  # recall: bad
ok = IQuestQ1MTPConfig(num_draft_slots=7, swa_rope_theta=10000.0)  # recall: good
