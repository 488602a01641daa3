PARSER_NAMES = ("qwen3", "deepseek-r1")
