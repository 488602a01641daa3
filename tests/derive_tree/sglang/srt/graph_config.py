class Backend:
    RETIRED = "piecewise"
    FULL = "full"
    BREAKABLE = "breakable"
    ALL = (FULL, BREAKABLE)
