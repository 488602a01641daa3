# Stands in for the file sglang's build writes into its wheels (a chained assignment).
__version__ = version = "9.9.9"
__version_tuple__ = version_tuple = (9, 9, 9)
