from enum import IntEnum


class CanaryMode(IntEnum):
    NONE = 0
    PARTIAL = 1
    ALL = 2
