# raise: sglang.srt.configs.iquest_q1:IQuestQ1MTPConfig.__init__ line 190 (the parameter is rebound before the guard)
# why: num_target_layers=0 is not None, so it is not replaced by the target's depth, and fails `< 1`; 88 passes.
from sglang.srt.configs.iquest_q1 import IQuestQ1MTPConfig

bad = IQuestQ1MTPConfig(num_target_layers=0)  # recall: bad
ok = IQuestQ1MTPConfig(num_target_layers=88)  # recall: good
