SUPPORTED_MODULES = ["q_proj", "k_proj"]
ALL_MODULES = "all"
