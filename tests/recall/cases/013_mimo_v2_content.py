# raise: sglang.srt.multimodal.processors.mimo_v2:Content.__post_init__ line 212 (the guard does not run on every call)
# why: type "video_audio" needs a VideoAudioInput content: a bare path string raises in __post_init__.
from sglang.srt.multimodal.processors.mimo_v2 import Content, VideoAudioInput

bad = Content(type="video_audio", content="clip.mp4")  # recall: bad
ok = Content(type="video_audio", content=VideoAudioInput(video="clip.mp4", audio="clip.wav"))  # recall: good
