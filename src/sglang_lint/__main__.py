import sys

from sglang_lint.front import main

sys.exit(main())
