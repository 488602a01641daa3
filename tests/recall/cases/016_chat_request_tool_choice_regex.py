# raise: sglang.srt.entrypoints.openai.protocol:ChatCompletionRequest.to_sampling_params line 1268 (the guard does not run on every call)  # noqa: E501
# why: tool_choice "required" + regex + a json_schema tool-call constraint raises; no tool-call constraint passes.
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
request = ChatCompletionRequest(
    model="default",
    messages=[{"role": "user", "content": "What is the weather in Paris?"}],
    tools=[WEATHER_TOOL],
    tool_choice="required",
    regex=r"[A-Z][a-z]+",
)
tool_schema = {"type": "array", "items": {"type": "object"}}

bad = request.to_sampling_params([], {}, tool_call_constraint=("json_schema", tool_schema))  # recall: bad
ok = request.to_sampling_params([], {})  # recall: good
